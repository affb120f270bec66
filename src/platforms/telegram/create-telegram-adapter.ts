import { join } from 'node:path';
import { autoRetry } from '@grammyjs/auto-retry';
import { Bot, type Transformer } from 'grammy';
import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.js';
import { HermesError } from '../../errors/hermes-error.js';
import type { SharedFiles } from '../../lib/shared-files.js';
import {
  ADAPTER_CONTRACT_VERSION,
  type InboundSink,
  type PlatformAdapter,
  type PlatformLimits,
} from '../adapter.js';
import { access } from '../platform.js';
import { createSetupRetry } from '../shared/setup-retry.js';
import { sharedAttachmentsOf, sharedOption } from '../shared/shared-attachments.js';
import { addAttachment } from './download-attachment.js';
import { type PollingLoop, startPolling } from './polling-loop.js';
import { errorMessage } from './telegram-errors.js';
import { createTelegramOutbound, TELEGRAM_CALLBACK_DATA_BYTES } from './telegram-outbound.js';
import { ALLOWED_UPDATES } from './telegram-update.js';
import { type BotIdentity, TELEGRAM_PLATFORM } from './translate-update.js';
import { createUpdateDispatcher } from './update-dispatcher.js';
import {
  createWebhookHandler,
  TELEGRAM_WEBHOOK_PREFIX,
  TELEGRAM_WEBHOOK_ROUTE,
  type WebhookHandler,
} from './webhook-route.js';

export const TELEGRAM_LIMITS: PlatformLimits = {
  maxMessageLength: 4096,
  lengthUnit: 'utf16',
  maxActionDataBytes: TELEGRAM_CALLBACK_DATA_BYTES,
  supportsButtons: true,
  supportsEdit: true,
  supportsTyping: true,
  commandPrefix: '/',
};

const DEFAULT_API_ROOT = 'https://api.telegram.org';
/**
 * Calls delivery retries itself (obeying retry_after through PlatformError.retryAfterMs), and
 * getUpdates, which the polling loop retries: these go out once. Every other call (answering
 * callbacks, the command menu, getFile, webhook set-up) is retried by auto-retry on 429 and 5xx.
 */
const NOT_AUTO_RETRIED = new Set(['getUpdates', 'sendMessage', 'editMessageText', 'sendChatAction']);

export interface TelegramAdapterOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly token: string;
  /** Bot API server (TELEGRAM_API_ROOT / platforms.telegram.api_root); default api.telegram.org. */
  readonly apiRoot?: string;
  readonly mode: 'polling' | 'webhook';
  /** Public HTTPS URL Telegram posts updates to (webhook mode). */
  readonly webhookUrl?: string;
  /** Secret Telegram echoes in X-Telegram-Bot-Api-Secret-Token (webhook mode; required). */
  readonly webhookSecret?: string;
  /** The shared database's file store (DATABASE_URL): attachments are kept there too. */
  readonly sharedFiles?: SharedFiles;
  /** Who the bot is; skips getMe (tests). */
  readonly botInfo?: BotIdentity;
  /** Clock for `receivedAt` (epoch ms). */
  readonly now?: () => number;
  /** First delay after a failed poll or hand-over, ms (doubles up to 30 s); default 1000. */
  readonly backoffMs?: number;
}

export interface TelegramAdapter extends PlatformAdapter {
  readonly mode: 'polling' | 'webhook';
  /** The fastify handler of `POST /telegram/webhook` (webhook mode). */
  readonly handleWebhook: WebhookHandler;
}

/** Builds the Telegram platform on a real grammY client (long polling or webhook). */
export function createTelegramAdapter(options: TelegramAdapterOptions): TelegramAdapter {
  const { config, token, mode } = options;
  const settings = config.platforms.telegram;
  const logger = options.logger.child({ component: 'telegram' });
  const now = options.now ?? Date.now;
  const apiRoot = (options.apiRoot ?? settings.api_root ?? DEFAULT_API_ROOT).replace(/\/+$/, '');
  if (mode === 'webhook' && (options.webhookUrl === undefined || options.webhookSecret === undefined)) {
    throw new HermesError(
      'config_invalid',
      'Telegram webhook mode needs TELEGRAM_WEBHOOK_URL and TELEGRAM_WEBHOOK_SECRET (the secret Telegram sends back with every update); refusing to start without them',
    );
  }

  const bot = new Bot(token, { client: { apiRoot } });
  const retry = autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 10, rethrowHttpErrors: true });
  const transformer: Transformer = (prev, method, payload, signal) =>
    NOT_AUTO_RETRIED.has(method) ? prev(method, payload, signal) : retry(prev, method, payload, signal);
  bot.api.config.use(transformer);
  const api = bot.api;
  const outbound = createTelegramOutbound({ api, token, logger, parseMode: settings.parse_mode });

  let identity: BotIdentity | undefined = options.botInfo;
  let sink: InboundSink | undefined;
  let polling: PollingLoop | undefined;
  const backoffMs = options.backoffMs ?? 1000;

  const dispatcher = createUpdateDispatcher({
    logger,
    token,
    identity: () => identity,
    sink: () => sink,
    now,
    maxFailures: settings.max_update_failures,
    answerAction: (action, notice) => outbound.answerAction(action, notice),
    answerCallback: async (id, notice) => {
      await api.answerCallbackQuery(id, notice === '' ? {} : { text: notice });
    },
    withAttachment: (event, attachment) =>
      event.kind === 'message'
        ? addAttachment(event, attachment, {
            api,
            apiRoot,
            token,
            logger,
            maxBytes: settings.download_max_bytes,
            inboxDir: join(config.home, 'inbox', 'telegram'),
            attachImages: config.model.vision_model === undefined,
            ...sharedOption(sharedAttachmentsOf(config, options.sharedFiles)),
          })
        : Promise.resolve(event),
  });

  /** getMe, then deleteWebhook (polling) or setWebhook (webhook), retried until Telegram answers. */
  const connection = createSetupRetry({
    logger,
    what: 'telegram',
    describeError: (error) => errorMessage(error, token),
    backoffMs,
    setup: async () => {
      if (identity === undefined) {
        const me = await api.getMe();
        identity = { id: me.id, username: me.username };
      }
      if (mode === 'polling') {
        await api.deleteWebhook();
      } else {
        await api.setWebhook(options.webhookUrl ?? '', {
          secret_token: options.webhookSecret ?? '',
          allowed_updates: [...ALLOWED_UPDATES],
        });
      }
      logger.info({ mode, bot: identity.username }, 'telegram connected');
    },
  });

  const handleWebhook = createWebhookHandler({
    secret: options.webhookSecret ?? '',
    logger,
    receiving: () => mode === 'webhook' && sink !== undefined && identity !== undefined,
    dispatch: (update) => dispatcher.dispatch(update),
  });

  return {
    contractVersion: ADAPTER_CONTRACT_VERSION,
    platform: TELEGRAM_PLATFORM,
    limits: TELEGRAM_LIMITS,
    mode,
    handleWebhook,
    // `POST /telegram/webhook`, in webhook mode. Access `signed`: the handler checks Telegram's
    // secret token before it reads anything.
    ...(mode === 'webhook'
      ? {
          routes: {
            prefix: TELEGRAM_WEBHOOK_PREFIX,
            register: (app) => {
              app.post(TELEGRAM_WEBHOOK_ROUTE, access('signed'), handleWebhook);
            },
          },
        }
      : {}),

    async start(nextSink) {
      if (sink !== undefined) return;
      sink = nextSink;
      const ready = await connection.attempt();
      if (mode === 'polling') {
        polling = startPolling({
          api,
          token,
          logger,
          timeoutSeconds: settings.poll_timeout_seconds,
          backoffMs,
          maxBackoffMs: 30_000,
          dispatch: (update) => dispatcher.dispatch(update),
          ready: () => connection.attempt(),
          report: (next) => connection.report(next),
        });
      } else if (!ready) {
        connection.retryInBackground();
      }
    },

    async stop() {
      // Synchronously before the loop stops: it sets up again on its next start.
      connection.stop();
      const loop = polling;
      polling = undefined;
      await loop?.stop();
      await dispatcher.idle();
      sink = undefined;
    },

    async health() {
      return connection.health(sink !== undefined);
    },

    ...outbound,
  };
}
