import type { Logger } from 'pino';
import { constantTimeEqual } from '../../lib/constant-time-equal.js';
import type { DispatchOutcome } from '../shared/ordered-dispatcher.js';
import { createWebhookAck, type WebhookHandler } from '../shared/webhook-ack.js';
import { type TelegramUpdate, telegramUpdateSchema } from './telegram-update.js';

export type { WebhookHandler };

/** `POST /telegram/webhook`: the route under the platform's prefix. */
export const TELEGRAM_WEBHOOK_PREFIX = '/telegram';
export const TELEGRAM_WEBHOOK_ROUTE = '/webhook';
export const TELEGRAM_WEBHOOK_PATH = `${TELEGRAM_WEBHOOK_PREFIX}${TELEGRAM_WEBHOOK_ROUTE}`;
export const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/** Constant-time comparison of two secrets of any length; no secret matches nothing. */
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

/**
 * `POST /telegram/webhook` on the shared webhook acknowledgement (shared/webhook-ack.ts): the
 * secret header is checked first (401 without it), then the update is handed to the gateway,
 * and only once it was accepted does Telegram get its 200. A failure answers 500, so Telegram
 * delivers the update again later.
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  return createWebhookAck({
    logger: options.logger,
    what: 'telegram webhook update',
    authenticate: (request) => {
      const header = request.headers[SECRET_HEADER];
      return secretMatches(typeof header === 'string' ? header : '', options.secret)
        ? undefined
        : 'secret token is wrong';
    },
    receiving: options.receiving,
    parse: (request) => {
      const parsed = telegramUpdateSchema.safeParse(request.body);
      return parsed.success ? parsed.data : undefined;
    },
    handle: (update) => options.dispatch(update),
  });
}
