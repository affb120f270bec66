import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.js';
import type { Ingress } from '../ingress.js';
import { access, type DeliverToChat, type RouteServices } from '../platform.js';
import { createAuthLockout } from './auth-lockout.js';
import { handleWebhookPost } from './handle-webhook-post.js';
import { createRateLimiter } from './rate-limiter.js';
import { createRunResultSweep } from './run-result-sweep.js';
import { createRunTracker } from './run-tracker.js';
import { validateWebhookRoutes, type WebhookRoute } from './validate-webhook-routes.js';
import { createWebhookRuns, describeRun } from './webhook-runs.js';
import { bearerMatchesSecret, header } from './webhook-signature.js';

export interface WebhookPlatformDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly ingress: Ingress;
  /** Sends text to a chat of a configured platform; without it, `deliver: { platform, chat_id }` is refused at start-up. */
  readonly deliverToChat?: DeliverToChat | undefined;
  /**
   * Durable run records and the turn ends recorded for webhook runs: runs then survive a restart
   * and their results are delivered by whichever gateway process is up. Without them (embedding),
   * run records live in this process' memory.
   */
  readonly durable?: RouteServices['durable'];
  /** The outbox sweep of webhook results: between passes (default 3 s) and the age a turn end must reach first (default 2 s), ms. */
  readonly sweep?: { readonly intervalMs?: number; readonly minAgeMs?: number };
  readonly now?: () => number;
}

export interface WebhookPlatform {
  /** Names of the routes served (empty while webhooks are disabled). */
  readonly routes: readonly string[];
}

function errorBody(message: string, type: string): { error: { message: string; type: string } } {
  return { error: { message, type } };
}

/** Between passes of the webhook result sweep, ms. */
const SWEEP_INTERVAL_MS = 3_000;
/** Age a recorded turn end must reach before the sweep takes it from the live watcher, ms. */
const SWEEP_MIN_AGE_MS = 2_000;

/** Where the webhook routes live. */
export const WEBHOOK_PREFIX = '/webhooks';

/** Warns when routes are configured while webhooks are off; true when they are on. */
export function webhooksEnabled(config: Config, logger: Logger): boolean {
  const webhook = config.platforms.webhook;
  if (webhook.enabled) return true;
  const configured = Object.keys(webhook.routes).length;
  if (configured > 0) {
    logger.warn(
      { routes: configured },
      'webhook routes are configured but webhooks are disabled (WEBHOOK_ENABLED)',
    );
  }
  return false;
}

/**
 * The inbound webhook platform on `app`: validates the routes (throws `config_invalid`), then
 * mounts them under `/webhooks`; nothing while `platforms.webhook.enabled` is false. The gateway
 * mounts them through the platform list instead (webhook-platform.ts); this is for embedding and tests.
 */
export function registerWebhookPlatform(app: FastifyInstance, deps: WebhookPlatformDeps): WebhookPlatform {
  const routes = validateWebhookRoutes(deps.config, { canDeliverToChat: deps.deliverToChat !== undefined });
  if (!webhooksEnabled(deps.config, deps.logger.child({ component: 'webhook' }))) return { routes: [] };
  void app.register(async (scope) => addWebhookRoutes(scope, deps, routes), { prefix: WEBHOOK_PREFIX });
  return { routes: routes.map((route) => route.name) };
}

/**
 * `POST /webhooks/<route>` (signed events that start an unattended turn on the safe toolset and
 * answer 202 at once) and `GET /webhooks/<route>/runs/<run id>` (the run's status and result) on
 * a scope under `/webhooks`. Bodies are read raw (for the signature), capped per route.
 */
export function addWebhookRoutes(
  scope: FastifyInstance,
  deps: WebhookPlatformDeps,
  routes: readonly WebhookRoute[],
): void {
  const { config } = deps;
  const logger = deps.logger.child({ component: 'webhook' });
  const webhook = config.platforms.webhook;
  const now = deps.now ?? Date.now;
  const lockout = createAuthLockout({
    maxFailures: webhook.lockout_failures,
    lockoutMs: webhook.lockout_ms,
    now,
  });
  const limiter = createRateLimiter(now);
  const runs = createWebhookRuns({ maxRuns: webhook.max_runs, ttlMs: webhook.run_ttl_ms, now });
  const tracker = createRunTracker({
    turns: deps.ingress.watchTurns('webhook'),
    logger,
    runs,
    records: deps.durable?.webhookRuns,
    deliverToChat: deps.deliverToChat,
    runTimeoutMs: webhook.run_timeout_ms,
    deliveryAttempts: webhook.delivery_attempts,
    deliveryRetryMs: webhook.delivery_retry_ms,
    now,
  });
  const postContext = {
    ingress: deps.ingress,
    logger,
    lockout,
    limiter,
    runs,
    records: deps.durable?.webhookRuns,
    tracker,
    now,
  };
  const sweep =
    deps.durable === undefined
      ? undefined
      : createRunResultSweep({
          records: deps.durable.webhookRuns,
          turnEnds: deps.durable.turnEnds,
          routes,
          logger,
          deliverToChat: deps.deliverToChat,
          deliveryAttempts: webhook.delivery_attempts,
          deliveryRetryMs: webhook.delivery_retry_ms,
          runTimeoutMs: webhook.run_timeout_ms,
          runTtlMs: webhook.run_ttl_ms,
          now,
        });

  function refuse(reply: FastifyReply, code: number, message: string, type: string): FastifyReply {
    // The body may still be arriving: close the connection instead of reading the rest.
    return reply.code(code).header('connection', 'close').send(errorBody(message, type));
  }

  function getRun(route: WebhookRoute) {
    return async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
      if (
        route.secret !== undefined &&
        !bearerMatchesSecret(header(request.headers, 'authorization'), route.secret)
      ) {
        lockout.fail(request.ip);
        return reply
          .code(401)
          .send(
            errorBody(
              'Missing or wrong credentials: send Authorization: Bearer <route secret> to read a run.',
              'unauthorized',
            ),
          );
      }
      const stored = await deps.durable?.webhookRuns.getWebhookRun(request.params.id);
      const run =
        stored !== undefined && stored.createdAt > now() - webhook.run_ttl_ms
          ? stored
          : runs.get(request.params.id);
      if (run === undefined || run.route !== route.name) {
        return reply
          .code(404)
          .send(errorBody('No such run on this route (run records are kept for a while).', 'not_found'));
      }
      return reply.send(describeRun(run));
    };
  }

  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  scope.addHook('onRequest', async (request, reply) => {
    const waitMs = lockout.lockedFor(request.ip);
    if (waitMs === 0) return undefined;
    const seconds = Math.ceil(waitMs / 1000);
    return refuse(
      reply.header('retry-after', String(seconds)),
      429,
      `Too many failed authentication attempts from this address; try again in ${seconds} s.`,
      'locked_out',
    );
  });
  for (const route of routes) {
    // The handlers check the route's secret before anything else; an `insecure` route (no
    // secret, loopback only) is public.
    const routeAccess = access(route.secret === undefined ? 'public' : 'signed');
    scope.post(`/${route.name}`, { ...routeAccess, bodyLimit: route.maxBodyBytes }, (request, reply) =>
      handleWebhookPost(postContext, route, request, reply),
    );
    scope.get<{ Params: { id: string } }>(`/${route.name}/runs/:id`, routeAccess, getRun(route));
  }
  const unknown = async (request: FastifyRequest<{ Params: { route: string } }>, reply: FastifyReply) =>
    refuse(reply, 404, `No webhook route named "${request.params.route.slice(0, 64)}".`, 'not_found');
  scope.post<{ Params: { route: string } }>(
    '/:route',
    { ...access('public'), onRequest: unknown },
    async () => undefined,
  );
  scope.get<{ Params: { route: string } }>(
    '/:route/runs/:id',
    { ...access('public'), onRequest: unknown },
    async () => undefined,
  );
  if (sweep !== undefined) {
    const timer = setInterval(
      () => void sweep.run(deps.sweep?.minAgeMs ?? SWEEP_MIN_AGE_MS),
      deps.sweep?.intervalMs ?? SWEEP_INTERVAL_MS,
    );
    timer.unref();
    // Results of runs that ended while no gateway was up: every recorded turn end at once.
    scope.addHook('onReady', async () => {
      void sweep.run(0);
    });
    scope.addHook('onClose', async () => {
      clearInterval(timer);
    });
  }
  scope.addHook('onClose', async () => {
    await tracker.close(config.queue.shutdown_grace_ms);
    await sweep?.stop();
  });
  logger.info({ routes: routes.map((route) => route.name) }, 'webhook routes ready');
}
