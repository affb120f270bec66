import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { access } from '../http/route-access.js';
import { bundleDashboard } from './bundle-dashboard.js';
import {
  type DashboardDeps,
  decideAsOperator,
  healthChecks,
  liveSessions,
  pendingApprovals,
  pendingOutbox,
  queueFigures,
  recentFailures,
  sessionTranscript,
  turnFigures,
} from './dashboard-data.js';
import { dashboardPage } from './dashboard-page.js';

const SECURITY = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const decisionSchema = z.object({ choice: z.enum(['once', 'deny']) }).strict();

const STATUS_CODES: Record<string, number> = {
  recorded: 200,
  not_found: 404,
  already_decided: 409,
  expired: 410,
  forbidden: 403,
  scope_refused: 422,
  invalid: 400,
};

/**
 * The operator dashboard: `GET /ui` (the page) and `/ui/dashboard.js` hold no data and are public;
 * everything the page shows or does goes through `/ui/api/*`, whose routes are `operator`-only
 * (the dashboard token, or a loopback client when none is set).
 */
export function addDashboardRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  let script: Promise<string> | undefined;
  const page = dashboardPage();
  app.get('/ui', access('public'), async (_request, reply) =>
    reply.headers(SECURITY).type('text/html; charset=utf-8').send(page),
  );
  app.get('/ui/dashboard.js', access('public'), async (_request, reply) => {
    script ??= bundleDashboard();
    const text = await script.catch((error: unknown) => {
      script = undefined;
      throw error;
    });
    return reply.headers(SECURITY).type('text/javascript; charset=utf-8').send(text);
  });
  app.get('/ui/api/overview', access('operator'), async (_request, reply) => {
    const [approvals, sessions, health] = await Promise.all([
      pendingApprovals(deps),
      liveSessions(deps),
      healthChecks(deps),
    ]);
    return reply.headers(SECURITY).send({
      now: deps.now(),
      approvals: approvals.map(({ ref: _ref, ...shown }) => shown),
      sessions,
      health,
      queue: await queueFigures(deps, approvals.length),
      turns: await turnFigures(deps),
      outbox: await pendingOutbox(deps),
      failures: await recentFailures(deps),
    });
  });
  app.get('/ui/api/failures', access('operator'), async (_request, reply) =>
    reply.headers(SECURITY).send(await recentFailures(deps)),
  );
  app.get('/ui/api/outbox', access('operator'), async (_request, reply) =>
    reply.headers(SECURITY).send({ outbox: await pendingOutbox(deps) }),
  );
  app.get('/ui/api/approvals', access('operator'), async (_request, reply) =>
    reply
      .headers(SECURITY)
      .send({ approvals: (await pendingApprovals(deps)).map(({ ref: _ref, ...shown }) => shown) }),
  );
  app.get('/ui/api/sessions', access('operator'), async (_request, reply) =>
    reply.headers(SECURITY).send({ sessions: await liveSessions(deps) }),
  );
  app.get<{ Params: { key: string } }>(
    '/ui/api/sessions/:key/transcript',
    access('operator'),
    async (request, reply) => {
      // Conversations are other people's words: a loopback client without the token may be the
      // agent's own command, reading them from another session.
      if (!deps.tokenSet) {
        return reply
          .code(403)
          .headers(SECURITY)
          .send({
            error: {
              message:
                'Reading transcripts from the dashboard needs HERMES_DASHBOARD_TOKEN: without it, anything on this machine that reaches the port — the agent’s own commands included — could read every conversation.',
              type: 'operator_token_required',
            },
          });
      }
      const messages = await sessionTranscript(deps, request.params.key);
      if (messages === undefined) {
        return reply.code(404).send({ error: { message: 'no such session', type: 'not_found' } });
      }
      return reply.headers(SECURITY).send({ key: request.params.key, messages });
    },
  );
  app.get('/ui/api/health', access('operator'), async (_request, reply) => {
    const approvals = await pendingApprovals(deps);
    return reply.headers(SECURITY).send({
      checks: await healthChecks(deps),
      queue: await queueFigures(deps, approvals.length),
      turns: await turnFigures(deps),
    });
  });
  app.post<{ Params: { id: string } }>(
    '/ui/api/approvals/:id/decision',
    access('operator'),
    async (request, reply) => {
      const body = decisionSchema.safeParse(request.body);
      if (!body.success) {
        return reply
          .code(400)
          .send({ error: { message: 'send {"choice": "once" | "deny"}', type: 'invalid' } });
      }
      if (body.data.choice !== 'deny' && !deps.tokenSet) {
        return reply
          .code(403)
          .headers(SECURITY)
          .send({
            error: {
              message:
                'Approving from the dashboard needs HERMES_DASHBOARD_TOKEN: without it, anything on this machine that reaches the port — the agent’s own commands included — could approve its own commands. Deny works without it.',
              type: 'operator_token_required',
            },
          });
      }
      const status = await decideAsOperator(deps, request.params.id, body.data.choice);
      return reply
        .code(STATUS_CODES[status] ?? 400)
        .headers(SECURITY)
        .send({ status });
    },
  );
}
