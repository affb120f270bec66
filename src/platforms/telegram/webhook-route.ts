import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { constantTimeEqual } from '../../lib/constant-time-equal.js';
import { type TelegramUpdate, telegramUpdateSchema } from './telegram-update.js';
import type { DispatchOutcome } from './update-dispatcher.js';

/** `POST /telegram/webhook`: the route under the platform's prefix. */
export const TELEGRAM_WEBHOOK_PREFIX = '/telegram';
export const TELEGRAM_WEBHOOK_ROUTE = '/webhook';
export const TELEGRAM_WEBHOOK_PATH = `${TELEGRAM_WEBHOOK_PREFIX}${TELEGRAM_WEBHOOK_ROUTE}`;
export const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/** Constant-time comparison of two secrets of any length (both hashed first); no secret matches nothing. */
export function secretMatches(given: string, expected: string): boolean {
  return expected !== '' && constantTimeEqual(given, expected);
}

export interface WebhookHandlerOptions {
  readonly secret: string;
  readonly logger: Logger;
  /** False while the adapter is stopped: Telegram is told to come back later. */
  readonly receiving: () => boolean;
  readonly dispatch: (update: TelegramUpdate) => Promise<DispatchOutcome>;
}

export type WebhookHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * `POST /telegram/webhook`: the secret header is checked first (401 without it), then the update
 * is handed to the gateway, and only once it was accepted does Telegram get its 200. A failure
 * answers 500, so Telegram delivers the update again later.
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  return async (request, reply) => {
    const header = request.headers[SECRET_HEADER];
    const given = typeof header === 'string' ? header : '';
    if (!secretMatches(given, options.secret)) {
      await reply.code(401).send({ ok: false, error: 'secret token is wrong' });
      return;
    }
    if (!options.receiving()) {
      await reply.code(503).send({ ok: false, error: 'not receiving yet' });
      return;
    }
    const parsed = telegramUpdateSchema.safeParse(request.body);
    if (!parsed.success) {
      // Telegram would repeat a refused update forever; a malformed one is dropped on purpose.
      options.logger.warn('telegram webhook update malformed; dropped');
      await reply.code(200).send({ ok: true });
      return;
    }
    const outcome = await options.dispatch(parsed.data);
    await reply.code(outcome === 'done' ? 200 : 500).send({ ok: outcome === 'done' });
  };
}
