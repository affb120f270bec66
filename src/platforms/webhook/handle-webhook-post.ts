import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { jsonDepthExceeds } from '../../lib/json-depth.js';
import { jsonTextDepthExceeds } from '../../lib/json-text-depth.js';
import type { Ingress, TurnOriginInput, TurnRequest } from '../ingress.js';
import type { WebhookRunRecords } from '../webhook-run-records.js';
import type { AuthLockout } from './auth-lockout.js';
import { buildWebhookPrompt } from './build-webhook-prompt.js';
import { deliveryIdOf } from './delivery-id.js';
import { matchFilters } from './match-filters.js';
import { visibleHeaders } from './payload-path.js';
import type { RateLimiter } from './rate-limiter.js';
import type { RunTracker, RunWatch } from './run-tracker.js';
import type { WebhookRoute } from './validate-webhook-routes.js';
import type { WebhookRuns } from './webhook-runs.js';
import { type VerifyResult, verifyWebhookRequest } from './webhook-signature.js';

/** Nesting of a JSON body at most; deeper documents are refused with 400 before anything is recorded. */
export const MAX_PAYLOAD_DEPTH = 64;

/** A delivery id seen within this window is a duplicate (Hermes: 1 h). */
export const DEDUPE_WINDOW_MS = 3_600_000;

export interface WebhookPostContext {
  readonly ingress: Ingress;
  readonly logger: Logger;
  readonly lockout: AuthLockout;
  readonly limiter: RateLimiter;
  readonly runs: WebhookRuns;
  /** The durable run records, when the gateway has a store (they survive a restart). */
  readonly records?: WebhookRunRecords | undefined;
  readonly tracker: RunTracker;
  readonly now: () => number;
}

/**
 * The dedupe records a delivery takes, each for the dedupe window; any one already taken makes
 * it a duplicate. Always the delivery id. For `github` routes also a digest of the body: the
 * signature covers the body only, so a captured request replayed with a fresh
 * `X-GitHub-Delivery` is still the same signed body. Not for `standard` routes (the signature
 * covers the id and a timestamp, so a new id cannot be forged and the old one is deduped within
 * the 5-minute tolerance), nor for `bearer` or insecure routes (whoever could replay the
 * request holds the secret itself; a body digest would only drop repeated identical events).
 */
export function dedupeMarks(route: WebhookRoute, deliveryId: string, body: Buffer): string[] {
  const marks = [`${route.name}:${deliveryId}`];
  if (route.scheme === 'github' && route.secret !== undefined) {
    marks.push(`${route.name}:body:${createHash('sha256').update(body).digest('hex')}`);
  }
  return marks;
}

function send(reply: FastifyReply, code: number, message: string, type: string): FastifyReply {
  return reply.code(code).send({ error: { message, type } });
}

function tooDeep(reply: FastifyReply): FastifyReply {
  return send(
    reply,
    400,
    `The JSON body nests deeper than ${MAX_PAYLOAD_DEPTH} levels; flatten it (no webhook sender needs that).`,
    'payload_too_deep',
  );
}

function authMessage(route: WebhookRoute, reason: Exclude<VerifyResult, { ok: true }>['reason']): string {
  if (reason === 'stale') {
    return 'The webhook-timestamp is more than 5 minutes away from our clock; the request is refused as a possible replay.';
  }
  const expected = {
    github: 'an X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body> header',
    standard: 'webhook-id, webhook-timestamp and webhook-signature (v1,<base64 HMAC-SHA256>) headers',
    bearer: 'an Authorization: Bearer <secret> header',
  }[route.scheme];
  const what = reason === 'missing' ? 'Missing credentials' : 'Invalid signature or credentials';
  return `${what}: this route expects ${expected} made with its secret.`;
}

/**
 * One inbound delivery, in order: authenticate the raw bytes (401, counting towards the
 * address' lockout), parse JSON (400), take a rate-limit token (429), apply the filters
 * (200 `filtered`), check the model is there (503), dedupe by delivery id — and by body for
 * `github` routes — (200 `duplicate`), then queue the turn and answer 202 with the run id before
 * the turn runs. A delivery that cannot be queued releases its dedupe records (503), so the
 * sender's retry runs.
 */
export async function handleWebhookPost(
  context: WebhookPostContext,
  route: WebhookRoute,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { logger } = context;
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  if (route.secret !== undefined) {
    const verdict = verifyWebhookRequest({
      scheme: route.scheme,
      secret: route.secret,
      headers: request.headers,
      body,
      nowMs: context.now(),
    });
    if (!verdict.ok) {
      const locked = context.lockout.fail(request.ip);
      logger.warn(
        { route: route.name, ip: request.ip, reason: verdict.reason, locked },
        'webhook authentication failed',
      );
      return send(reply, 401, authMessage(route, verdict.reason), 'unauthorized');
    }
  }

  const text = body.toString('utf8');
  // Measured on the text first: parsing a document nested far deeper blocks the event loop.
  if (jsonTextDepthExceeds(text, MAX_PAYLOAD_DEPTH)) return tooDeep(reply);
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return send(reply, 400, 'The body is not valid JSON.', 'invalid_json');
  }
  // Refused before anything is recorded, so nothing is marked for a delivery that is not taken.
  if (jsonDepthExceeds(payload, MAX_PAYLOAD_DEPTH)) return tooDeep(reply);

  const token = context.limiter.take(route.name, route.ratePerMinute);
  if (!token.ok) {
    const seconds = Math.max(1, Math.ceil(token.retryAfterMs / 1000));
    reply.header('retry-after', String(seconds));
    return send(
      reply,
      429,
      `Rate limit of ${route.ratePerMinute} deliveries per minute reached; retry in ${seconds} s.`,
      'rate_limited',
    );
  }

  const event = { payload, headers: visibleHeaders(request.headers) };
  if (!matchFilters(event, route.filters)) return reply.code(200).send({ status: 'filtered' });

  const unavailable = context.ingress.unavailableReason();
  if (unavailable !== undefined) return send(reply, 503, unavailable, 'unavailable');

  const deliveryId = deliveryIdOf(route.scheme, request.headers, body);
  // Built before any dedupe record is taken: nothing between taking and queueing can throw.
  const chatId = `webhook:${route.name}:${deliveryId}`;
  const userId = `webhook:${route.name}`;
  const sessionKey = context.ingress.sessionKey({ platform: 'webhook', chatType: 'webhook', chatId, userId });
  const origin: TurnOriginInput = {
    platform: 'webhook',
    chatType: 'webhook',
    chatId,
    userId,
    userName: `webhook ${route.name}`,
    unattended: true,
    toolset: 'hermes-webhook',
  };
  const eventId = `webhook:${route.name}:${deliveryId}`;
  const runId = `run_${randomBytes(12).toString('base64url')}`;
  const item: TurnRequest = {
    sessionKey,
    eventId,
    text: buildWebhookPrompt({ route: route.name, deliveryId, template: route.template, event }),
    origin,
    receivedAt: context.now(),
  };

  const marks = dedupeMarks(route, deliveryId, body);
  const taken: string[] = [];
  const release = async () => {
    for (const mark of taken) {
      await context.ingress
        .releaseEvent('webhook', mark)
        .catch((error: Error) =>
          logger.error({ route: route.name, err: error.message }, 'webhook dedupe mark not released'),
        );
    }
  };
  try {
    for (const mark of marks) {
      if (!(await context.ingress.claimEvent('webhook', mark, DEDUPE_WINDOW_MS))) {
        if (taken.length > 0)
          logger.warn({ route: route.name, deliveryId }, 'webhook body replayed under a new delivery id');
        return reply.code(200).send({ status: 'duplicate', delivery_id: deliveryId });
      }
      taken.push(mark);
    }
  } catch (error) {
    await release();
    logger.error({ route: route.name, err: (error as Error).message }, 'webhook dedupe failed');
    return send(reply, 503, 'The gateway cannot record deliveries right now; retry later.', 'unavailable');
  }

  let watch: RunWatch | undefined;
  try {
    // The session is new (one per delivery): a route that widens the toolset says so here.
    if (route.toolsets !== undefined) {
      await context.ingress.setSessionToolsets(sessionKey, route.toolsets);
    }
    context.runs.add({
      runId,
      route: route.name,
      deliveryId,
      sessionKey,
      createdAt: context.now(),
      updatedAt: context.now(),
      status: 'queued',
      delivery: { status: 'pending' },
    });
    // Stored before the item is queued: the turn's end finds its run in any gateway process.
    await context.records?.saveWebhookRun({ runId, route: route.name, deliveryId, sessionKey, eventId });
    watch = await context.tracker.watch({ runId, deliveryId, sessionKey, eventId, route });
    const submitted = await context.ingress.submit(item);
    if (submitted.status === 'duplicate') {
      await watch.cancel();
      context.runs.remove(runId);
      await forget(context, runId);
      return reply.code(200).send({ status: 'duplicate', delivery_id: deliveryId });
    }
    watch.begin();
  } catch (error) {
    await watch?.cancel();
    context.runs.remove(runId);
    await forget(context, runId);
    // Not accepted: the sender's retry must be processed, not answered as a duplicate.
    await release();
    logger.error(
      { route: route.name, deliveryId, err: (error as Error).message },
      'webhook delivery could not be queued',
    );
    return send(
      reply,
      503,
      'The gateway could not queue this delivery right now; retry later.',
      'unavailable',
    );
  }
  logger.info({ route: route.name, deliveryId, runId, sessionKey }, 'webhook delivery accepted');
  return reply.code(202).send({
    status: 'accepted',
    run_id: runId,
    delivery_id: deliveryId,
    status_url: `/webhooks/${route.name}/runs/${runId}`,
  });
}

/** Drops the durable record of a run whose delivery was not queued after all. */
async function forget(context: WebhookPostContext, runId: string): Promise<void> {
  await context.records
    ?.deleteWebhookRun(runId)
    .catch((error: Error) =>
      context.logger.warn({ runId, err: error.message }, 'record of an unqueued webhook run not deleted'),
    );
}
