import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Config } from '../../config/config-schema.js';
import { timeOrderedId } from '../../lib/time-ordered-id.js';
import type { Ingress, PromptAnswer, PromptAnswerStatus, TurnOriginInput } from '../ingress.js';
import { access } from '../platform.js';
import { chatMessageSchema, imageProblem, splitContent, toHistoryMessage } from './chat-request.js';
import { type FollowRunDeps, followRun, settlePending, watchRun } from './follow-run.js';
import { openAiError } from './openai-error.js';
import { createRunRegistry, isFinished, publicRun, type RunEvent } from './run-registry.js';

const runRequestSchema = z
  .object({
    input: z.union([z.string().min(1).max(1_000_000), z.array(chatMessageSchema).min(1).max(1000)]),
    session_id: z.string().min(1).max(256).optional(),
    attended: z.boolean().optional(),
    model: z.string().min(1).max(200).optional(),
  })
  .strict();

const approvalSchema = z
  .object({ choice: z.enum(['once', 'session', 'always', 'deny']), id: z.string().max(200).optional() })
  .strict();
const clarifySchema = z
  .object({ answer: z.string().min(1).max(4000), id: z.string().max(200).optional() })
  .strict();

const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Who answers prompts over this API (the key holder speaks for the run's user). */
const API_USER = 'api';
/** A comment line that keeps proxies from closing a quiet event stream, ms. */
const HEARTBEAT_MS = 15_000;

export interface RunRoutesDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly ingress: Ingress;
  readonly now: () => number;
}

/**
 * The Runs API on a scope under `/v1`: `POST /runs` starts a turn and answers its id at once,
 * `GET /runs/:id` its state, `GET /runs/:id/events` its events (SSE, replayed from the start or
 * from `Last-Event-ID`), `POST /runs/:id/approval` and `/clarify` answer its prompt (through the
 * chat buttons' decision path), `POST /runs/:id/stop` stops it.
 */
export function addRunRoutes(
  app: FastifyInstance,
  deps: RunRoutesDeps,
  postOptions: RouteShorthandOptions,
): void {
  const { config, ingress, logger, now } = deps;
  const runs = createRunRegistry({ now, keepMs: 3_600_000, maxRuns: 1000 });
  const follow: FollowRunDeps = {
    runs,
    turns: ingress.watchTurns('api_server', { idsMintedHere: true }),
    now,
    timeoutMs: config.queue.api_timeout_ms,
  };
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });
  app.addHook('onClose', async () => follow.turns.close());

  const notFound = (reply: FastifyReply, id: string) =>
    reply
      .code(404)
      .send(openAiError(`No run ${id.slice(0, 80)} here.`, 'invalid_request_error', 'run_not_found'));
  const badRequest = (reply: FastifyReply, error: z.ZodError) => {
    const issue = error.issues[0];
    const where = issue?.path.map(String).join('.') || 'body';
    return reply
      .code(400)
      .send(
        openAiError(`Invalid request: '${where}': ${issue?.message ?? 'malformed'}`, 'invalid_request_error'),
      );
  };

  app.post('/runs', postOptions, async (request, reply) => {
    const parsed = runRequestSchema.safeParse(request.body);
    if (!parsed.success) return badRequest(reply, parsed.error);
    const body = parsed.data;
    const keyHeader = request.headers[IDEMPOTENCY_HEADER];
    const key = typeof keyHeader === 'string' && keyHeader !== '' ? keyHeader.slice(0, 255) : undefined;
    if (key !== undefined) {
      const existing = runs.byIdempotencyKey(key);
      if (existing !== undefined)
        return reply.header('idempotent-replayed', 'true').send(publicRun(existing));
    }

    const messages =
      typeof body.input === 'string' ? [{ role: 'user' as const, content: body.input }] : body.input;
    const last = messages[messages.length - 1];
    const { text, images } = splitContent(last?.content);
    if (last?.role !== 'user' || (text.trim() === '' && images.length === 0)) {
      return reply
        .code(400)
        .send(
          openAiError(
            'The last input message must be a user message with text or images.',
            'invalid_request_error',
          ),
        );
    }
    const badImages = imageProblem(images);
    if (badImages !== undefined) {
      return reply.code(400).send(openAiError(badImages, 'invalid_request_error', 'invalid_image'));
    }
    const unavailable = ingress.unavailableReason();
    if (unavailable !== undefined) {
      return reply.code(503).send(openAiError(unavailable, 'service_unavailable', 'model_not_configured'));
    }

    // With an Idempotency-Key the ids follow from it: a retry that reaches another gateway
    // process is recognised by the queue's dedupe (same event id) and never runs twice.
    const token =
      key === undefined
        ? timeOrderedId().replace(/-/g, '')
        : createHash('sha256').update(`run:${key}`).digest('hex').slice(0, 32);
    const runId = `run_${token}`;
    const chatId =
      body.session_id === undefined
        ? `run-${token}`
        : `conv-${createHash('sha256').update(body.session_id).digest('hex').slice(0, 32)}`;
    const sessionKey = ingress.sessionKey({ platform: 'api_server', chatType: 'dm', chatId });
    const attended = body.attended === true;
    const modelName = config.model.name ?? 'hermes-agent';
    const origin: TurnOriginInput = {
      platform: 'api_server',
      chatType: 'dm',
      chatId,
      userId: API_USER,
      // Attended: a person follows the run and answers its prompts over this API.
      unattended: !attended,
      toolset: attended ? 'hermes-api-attended' : 'hermes-api-server',
      ...(body.model !== undefined && body.model !== modelName ? { model: body.model } : {}),
      ...(images.length > 0 ? { images } : {}),
    };
    const problem = ingress.checkOrigin(origin);
    if (problem !== undefined) {
      return reply.code(400).send(openAiError(`Invalid request: ${problem}`, 'invalid_request_error'));
    }
    if (body.session_id === undefined && messages.length > 1) {
      await ingress.appendHistory(sessionKey, messages.slice(0, -1).flatMap(toHistoryMessage));
    }

    const run = runs.create(
      { id: runId, eventId: `api:${runId}`, sessionKey, chatId, sessionId: body.session_id, attended },
      key,
    );
    const watch = await watchRun(follow, run);
    let status: string;
    try {
      ({ status } = await ingress.submit({
        sessionKey,
        eventId: run.eventId,
        text,
        origin,
        receivedAt: now(),
        dedupe: key !== undefined,
        solo: true,
      }));
    } catch (error) {
      watch.cancel();
      runs.remove(run.id);
      logger.error({ err: (error as Error).message, sessionKey }, 'run could not be queued');
      return reply
        .code(503)
        .send(
          openAiError(
            'The gateway could not accept the run right now; try again shortly.',
            'service_unavailable',
            'queue_unavailable',
          ),
        );
    }
    if (status === 'duplicate') {
      // Accepted earlier under this key by another process (or before this one forgot it).
      watch.cancel();
      runs.remove(run.id);
      return reply.header('idempotent-replayed', 'true').send({ id: runId, object: 'run', status: 'queued' });
    }
    void followRun(follow, run, watch).catch((error: unknown) => {
      logger.error({ err: (error as Error).message, runId }, 'run follow failed');
    });
    return reply.code(202).header('location', `/v1/runs/${runId}`).send(publicRun(run));
  });

  app.get<{ Params: { id: string } }>('/runs/:id', access('api_key'), async (request, reply) => {
    const run = runs.get(request.params.id);
    return run === undefined ? notFound(reply, request.params.id) : reply.send(publicRun(run));
  });

  app.get<{ Params: { id: string }; Querystring: { after?: string } }>(
    '/runs/:id/events',
    access('api_key'),
    async (request, reply) => {
      const run = runs.get(request.params.id);
      if (run === undefined) return notFound(reply, request.params.id);
      const after = resumePoint(request);
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      let closed = false;
      const end = () => {
        if (closed) return;
        closed = true;
        run.listeners.delete(write);
        streams.delete(end);
        clearInterval(heartbeat);
        raw.end();
      };
      const write = (event: RunEvent) => {
        if (closed) return;
        raw.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
        if (event.type === 'done' || event.type === 'failed') end();
      };
      const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
      streams.add(end);
      raw.on('close', end);
      raw.write('retry: 1000\n\n');
      for (const event of run.events) if (event.id > after) write(event);
      if (isFinished(run)) end();
      else run.listeners.add(write);
      return reply;
    },
  );

  async function answer(
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
    kind: PromptAnswer['kind'],
  ): Promise<FastifyReply> {
    const run = runs.get(request.params.id);
    if (run === undefined) return notFound(reply, request.params.id);
    const parsed =
      kind === 'approval' ? approvalSchema.safeParse(request.body) : clarifySchema.safeParse(request.body);
    if (!parsed.success) return badRequest(reply, parsed.error);
    const pending = run.pending;
    if (pending === undefined || pending.shown.type !== kind) {
      return conflict(
        reply,
        `Run ${run.id} is not waiting for ${kind === 'approval' ? 'an approval' : 'an answer'}.`,
        'no_pending_prompt',
      );
    }
    if (parsed.data.id !== undefined && parsed.data.id !== pending.shown.id) {
      return conflict(
        reply,
        `The prompt ${parsed.data.id.slice(0, 80)} is not the one the run waits on.`,
        'stale_prompt',
      );
    }
    let given: PromptAnswer;
    if ('choice' in parsed.data) {
      if (!pending.shown.choices.includes(parsed.data.choice)) {
        return reply
          .code(400)
          .send(
            openAiError(
              `'${parsed.data.choice}' is not offered for this command; choose one of ${pending.shown.choices.join(', ')}.`,
              'invalid_request_error',
              'scope_refused',
            ),
          );
      }
      given = { kind: 'approval', choice: parsed.data.choice };
    } else {
      given = { kind: 'clarify', answer: parsed.data.answer };
    }
    const mine = {
      parkId: pending.ref.parkId,
      outcome: given.kind === 'approval' ? given.choice : 'answered',
    };
    run.answering = mine;
    const result = await ingress.answerPrompt(pending.ref, given, { userId: API_USER });
    if (result.status === 'recorded') {
      if (run.pending?.ref.parkId === pending.ref.parkId) settlePending(follow, run, mine.outcome);
      return reply.send(publicRun(run));
    }
    if (run.answering === mine) run.answering = undefined;
    return answerRefused(reply, result.status);
  }

  app.post<{ Params: { id: string } }>('/runs/:id/approval', postOptions, (request, reply) =>
    answer(request, reply, 'approval'),
  );
  app.post<{ Params: { id: string } }>('/runs/:id/clarify', postOptions, (request, reply) =>
    answer(request, reply, 'clarify'),
  );

  app.post<{ Params: { id: string } }>('/runs/:id/stop', postOptions, async (request, reply) => {
    const run = runs.get(request.params.id);
    if (run === undefined) return notFound(reply, request.params.id);
    if (isFinished(run))
      return conflict(reply, `Run ${run.id} has already ended (${run.status}).`, 'run_finished');
    const stopped = await ingress.stopSession(run.sessionKey, run.pending?.ref);
    return reply.code(202).send({ ...publicRun(run), stop: stopped });
  });
}

/** Where a reconnecting subscriber left off: `Last-Event-ID`, or `?after=` (0: from the start). */
function resumePoint(request: FastifyRequest<{ Querystring: { after?: string } }>): number {
  const header = request.headers['last-event-id'];
  const raw = typeof header === 'string' && header !== '' ? header : request.query.after;
  const value = raw === undefined ? 0 : Number.parseInt(raw, 10);
  return Number.isFinite(value) && value > 0 ? value : 0;
}

function conflict(reply: FastifyReply, message: string, code: string): FastifyReply {
  return reply.code(409).send(openAiError(message, 'invalid_request_error', code));
}

function answerRefused(reply: FastifyReply, status: Exclude<PromptAnswerStatus, 'recorded'>): FastifyReply {
  switch (status) {
    case 'already_decided':
      return conflict(reply, 'This prompt was already answered; nothing was changed.', 'already_decided');
    case 'expired':
      return conflict(reply, 'Too late: this prompt expired (a denial); nothing ran.', 'expired');
    case 'forbidden':
      return reply
        .code(403)
        .send(
          openAiError('Only the requester or an operator can decide this.', 'permission_error', 'forbidden'),
        );
    case 'scope_refused':
      return reply
        .code(400)
        .send(
          openAiError(
            'That choice is not available for this command.',
            'invalid_request_error',
            'scope_refused',
          ),
        );
    default:
      return conflict(
        reply,
        'This prompt cannot be answered any more; nothing was changed.',
        'invalid_prompt',
      );
  }
}
