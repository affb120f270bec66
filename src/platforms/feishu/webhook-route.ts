import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { access } from '../platform.js';
import { eventOfEnvelope, type LarkEvent } from './feishu-event.js';
import { verifyCallback } from './verify-callback.js';

/** `POST /feishu/webhook`: event callbacks and card callbacks (`card.action.trigger`) alike. */
export const FEISHU_WEBHOOK_PREFIX = '/feishu';
export const FEISHU_WEBHOOK_ROUTE = '/webhook';
export const FEISHU_WEBHOOK_PATH = `${FEISHU_WEBHOOK_PREFIX}${FEISHU_WEBHOOK_ROUTE}`;
/** Largest callback body read, bytes (Lark's are a few KB). */
const MAX_BODY_BYTES = 1_048_576;

/** What the adapter answers for an event: HTTP status and JSON body. */
export interface EventAnswer {
  readonly status: number;
  readonly body: unknown;
}

export interface FeishuWebhookOptions {
  readonly logger: Logger;
  readonly encryptKey: string | undefined;
  readonly verificationToken: string | undefined;
  readonly toleranceMs: number;
  readonly now: () => number;
  /** False while the adapter is stopped: Lark is told to come back later (503). */
  readonly receiving: () => boolean;
  readonly handle: (event: LarkEvent) => Promise<EventAnswer>;
}

export type FeishuWebhookHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * The webhook handler. Our own checks come first (verify-callback.ts): a request that fails them
 * is answered 401 or 400 — never 200, and never a crash — and nothing of it is read further.
 * Then the `url_verification` challenge is echoed, and events go to the adapter: 200 once the
 * gateway holds them (with the card callback's answer as body), 500 when it did not take them,
 * so Lark delivers them again.
 */
export function createFeishuWebhookHandler(options: FeishuWebhookOptions): FeishuWebhookHandler {
  const { logger } = options;
  return async (request, reply) => {
    const raw = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
    const verified = verifyCallback(request.headers, raw, {
      encryptKey: options.encryptKey,
      verificationToken: options.verificationToken,
      toleranceMs: options.toleranceMs,
      now: options.now(),
    });
    if (!verified.ok) {
      logger.warn({ status: verified.status, reason: verified.reason }, 'feishu callback refused');
      await reply.code(verified.status).send({ ok: false, error: verified.reason });
      return;
    }
    const { payload } = verified;
    if (payload['type'] === 'url_verification') {
      await reply
        .code(200)
        .send({ challenge: typeof payload['challenge'] === 'string' ? payload['challenge'] : '' });
      return;
    }
    if (!options.receiving()) {
      await reply.code(503).send({ ok: false, error: 'not receiving yet' });
      return;
    }
    const event = eventOfEnvelope(payload);
    if (event === undefined) {
      // Authentic but not an event we read (a v1 payload): acknowledged, or Lark repeats it.
      logger.warn('feishu callback is not a v2 event; ignored');
      await reply.code(200).send({});
      return;
    }
    const answer = await options.handle(event);
    await reply.code(answer.status).send(answer.body);
  };
}

/** Mounts the handler with the raw body kept (the signature is over the exact bytes). */
export function registerFeishuWebhook(app: FastifyInstance, handler: FeishuWebhookHandler): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (_request, body, done) =>
    done(null, body),
  );
  app.post(FEISHU_WEBHOOK_ROUTE, { ...access('signed'), bodyLimit: MAX_BODY_BYTES }, handler);
}
