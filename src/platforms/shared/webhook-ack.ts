import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { DispatchOutcome } from './ordered-dispatcher.js';

/**
 * The fastify handler of a platform's webhook (Telegram's updates, Feishu's events and card
 * callbacks), acknowledging an event only once the gateway holds it:
 *
 *   app.post('/webhook', access('signed'), createWebhookAck({ logger, what, authenticate, receiving, parse, handle }));
 *
 * In order: `authenticate` (the secret header, a signature over the raw body; 401 with its
 * refusal) before anything is read, `receiving` (503 while the adapter is stopped, so the
 * platform comes back later), `parse` (a malformed payload is logged and answered 200: the
 * platform would repeat a refused one forever), then `handle` — `done` answers 200 (with `body`
 * when the platform reads the answer, as card callbacks do), `failed` answers 500 so the platform
 * delivers the event again.
 */

export type WebhookAnswer = DispatchOutcome | { readonly outcome: 'done'; readonly body: unknown };

export interface WebhookAckOptions<T> {
  readonly logger: Logger;
  /** What a payload is called in logs (`telegram webhook update`). */
  readonly what: string;
  /** Undefined when the request is authentic; otherwise the refusal sent with 401. */
  readonly authenticate: (request: FastifyRequest) => string | undefined;
  /** False while the adapter is stopped. */
  readonly receiving: () => boolean;
  /** The platform's payload from the request, or undefined when it is malformed. */
  readonly parse: (request: FastifyRequest) => T | undefined;
  readonly handle: (payload: T) => Promise<WebhookAnswer>;
}

export type WebhookHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export function createWebhookAck<T>(options: WebhookAckOptions<T>): WebhookHandler {
  return async (request, reply) => {
    const refusal = options.authenticate(request);
    if (refusal !== undefined) {
      await reply.code(401).send({ ok: false, error: refusal });
      return;
    }
    if (!options.receiving()) {
      await reply.code(503).send({ ok: false, error: 'not receiving yet' });
      return;
    }
    const payload = options.parse(request);
    if (payload === undefined) {
      options.logger.warn(`${options.what} malformed; dropped`);
      await reply.code(200).send({ ok: true });
      return;
    }
    const answer = await options.handle(payload);
    if (typeof answer === 'object') {
      await reply.code(200).send(answer.body);
      return;
    }
    await reply.code(answer === 'done' ? 200 : 500).send({ ok: answer === 'done' });
  };
}
