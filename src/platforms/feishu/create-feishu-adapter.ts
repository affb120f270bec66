import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.js';
import type { SharedFiles } from '../../lib/shared-files.js';
import {
  ADAPTER_CONTRACT_VERSION,
  type InboundResult,
  type InboundSink,
  type PlatformAdapter,
  type PlatformLimits,
} from '../adapter.js';
import { createOrderedDispatcher } from '../shared/ordered-dispatcher.js';
import { createSetupRetry } from '../shared/setup-retry.js';
import { sharedAttachmentsOf, sharedOption } from '../shared/shared-attachments.js';
import { FEISHU_ACTION_DATA_BYTES } from './feishu-cards.js';
import { describeLarkError } from './feishu-errors.js';
import type { LarkEvent } from './feishu-event.js';
import { addFeishuImages } from './feishu-images.js';
import { createLongConnection, type LongConnection } from './feishu-long-connection.js';
import { createFeishuOutbound } from './feishu-outbound.js';
import { FEISHU_PLATFORM, type FeishuSettings } from './feishu-settings.js';
import { lazyLarkClient, loadLarkSdk } from './lark-client.js';
import { translateCardAction, translateMessage } from './translate-event.js';
import {
  createFeishuWebhookHandler,
  type EventAnswer,
  FEISHU_WEBHOOK_PREFIX,
  type FeishuWebhookHandler,
  registerFeishuWebhook,
} from './webhook-route.js';

export const FEISHU_LIMITS: PlatformLimits = {
  // Lark takes far more, but cards (markdown answers) are capped at 30 KB of JSON.
  maxMessageLength: 4000,
  lengthUnit: 'codepoints',
  maxActionDataBytes: FEISHU_ACTION_DATA_BYTES,
  supportsButtons: true,
  supportsEdit: true,
  supportsTyping: false,
  commandPrefix: '/',
};

/** How long event and message ids are remembered against redelivery. */
const DEDUPE_TTL_MS = 24 * 3_600_000;
const DEDUPE_MAX = 20_000;
const FAILED_CLICK_NOTICE = 'Sorry — this click could not be handled. Please try again.';

export interface FeishuAdapterOptions {
  readonly config: Config;
  readonly settings: FeishuSettings;
  readonly logger: Logger;
  /** Clock (epoch ms): `receivedAt` and the webhook's freshness window. */
  readonly now?: () => number;
  /** First delay after a failed set-up, ms (doubles up to 30 s); default 1000. */
  readonly backoffMs?: number;
  /** The shared database's file store (DATABASE_URL): images are kept there too. */
  readonly sharedFiles?: SharedFiles;
}

export interface FeishuAdapter extends PlatformAdapter {
  readonly mode: 'websocket' | 'webhook';
  /** The fastify handler of `POST /feishu/webhook` (webhook mode). */
  readonly handleWebhook: FeishuWebhookHandler;
}

/** Builds the Feishu/Lark platform on the real @larksuiteoapi/node-sdk client. */
export function createFeishuAdapter(options: FeishuAdapterOptions): FeishuAdapter {
  const { config, settings } = options;
  const logger = options.logger.child({ component: 'feishu' });
  const now = options.now ?? Date.now;
  const client = lazyLarkClient(settings, logger);
  const outbound = createFeishuOutbound(client);
  const groupReplyAll = config.gateway.group_reply === 'all';
  const seenEvents = new LRUCache<string, true>({ max: DEDUPE_MAX, ttl: DEDUPE_TTL_MS });
  const chatTypes = new LRUCache<string, 'dm' | 'group'>({ max: DEDUPE_MAX });
  const dispatcher = createOrderedDispatcher({
    logger,
    what: 'feishu event',
    maxFailures: settings.maxEventFailures,
    describeError: describeLarkError,
    memory: 4_096,
  });

  let sink: InboundSink | undefined;
  let botOpenId: string | undefined = settings.botOpenId;
  let longConnection: LongConnection | undefined;

  const identity = createSetupRetry({
    logger,
    what: 'feishu',
    describeError: describeLarkError,
    backoffMs: options.backoffMs ?? 1000,
    setup: async () => {
      if (botOpenId !== undefined) return;
      const answer: unknown = await (await client()).request({
        method: 'GET',
        url: '/open-apis/bot/v3/info',
      });
      const bot = (answer as { bot?: { open_id?: unknown } } | undefined)?.bot;
      if (typeof bot?.open_id !== 'string' || bot.open_id === '') {
        throw new Error('bot/v3/info answered without the bot open_id');
      }
      botOpenId = bot.open_id;
      logger.info({ mode: settings.mode }, 'feishu connected');
    },
  });

  async function handOverMessage(event: LarkEvent): Promise<EventAnswer> {
    if (seenEvents.has(event.eventId)) return { status: 200, body: {} };
    const own = botOpenId;
    if (own === undefined) return { status: 503, body: { ok: false } };
    const translation = translateMessage(event.event, {
      settings,
      botOpenId: own,
      groupReplyAll,
      now: now(),
    });
    if (translation.kind === 'skip') {
      logger.debug({ eventId: event.eventId, reason: translation.reason }, 'feishu message skipped');
      seenEvents.set(event.eventId, true);
      return { status: 200, body: {} };
    }
    const inbound = translation.event;
    chatTypes.set(inbound.chat.chatId, inbound.chat.chatType === 'dm' ? 'dm' : 'group');
    if (seenEvents.has(inbound.eventId)) {
      seenEvents.set(event.eventId, true);
      return { status: 200, body: {} };
    }
    const result = await dispatcher.dispatch(inbound.eventId, () => ({
      ...(translation.lane !== undefined ? { lane: translation.lane } : {}),
      run: async () => {
        const target = sink;
        if (target === undefined) throw new Error('the feishu adapter is not started');
        const full =
          inbound.kind === 'message' && translation.imageKeys.length > 0
            ? await addFeishuImages(inbound, translation.imageKeys, {
                client,
                logger,
                maxBytes: settings.downloadMaxBytes,
                inboxDir: join(config.home, 'inbox', 'feishu'),
                attachImages: config.model.vision_model === undefined,
                ...sharedOption(sharedAttachmentsOf(config, options.sharedFiles)),
              })
            : inbound;
        await target(full);
      },
    }));
    if (result.outcome === 'failed') return { status: 500, body: { ok: false } };
    seenEvents.set(event.eventId, true);
    seenEvents.set(inbound.eventId, true);
    return { status: 200, body: {} };
  }

  function cardAnswer(result: InboundResult | undefined, card: unknown): Record<string, unknown> {
    const notice = result?.status === 'answered' ? result.notice : undefined;
    return {
      ...(notice !== undefined && notice !== ''
        ? { toast: { type: card !== undefined ? 'success' : 'info', content: notice } }
        : {}),
      ...(card !== undefined ? { card: { type: 'raw', data: card } } : {}),
    };
  }

  async function handOverClick(event: LarkEvent): Promise<EventAnswer> {
    const click = translateCardAction(event.event, event.eventId, {
      settings,
      now: now(),
      chatTypeOf: (chatId) => chatTypes.get(chatId),
    });
    if (click === undefined) {
      logger.warn({ eventId: event.eventId }, 'feishu card callback malformed; ignored');
      return { status: 200, body: {} };
    }
    const result = await dispatcher.dispatch<Record<string, unknown>>(event.eventId, () => ({
      run: async () => {
        const target = sink;
        if (target === undefined) throw new Error('the feishu adapter is not started');
        const hold = outbound.holdAnswer(click.messageId);
        try {
          const answer = await target(click.event);
          return cardAnswer(answer, hold.slot.card);
        } finally {
          hold.release();
        }
      },
    }));
    if (result.outcome === 'failed') {
      return { status: 200, body: { toast: { type: 'error', content: FAILED_CLICK_NOTICE } } };
    }
    return { status: 200, body: result.answer ?? {} };
  }

  async function handleEvent(event: LarkEvent): Promise<EventAnswer> {
    switch (event.eventType) {
      case 'im.message.receive_v1':
        return handOverMessage(event);
      case 'card.action.trigger':
        return handOverClick(event);
      default:
        logger.debug({ eventType: event.eventType }, 'feishu event type not handled');
        return { status: 200, body: {} };
    }
  }

  const handleWebhook = createFeishuWebhookHandler({
    logger,
    encryptKey: settings.encryptKey,
    verificationToken: settings.verificationToken,
    toleranceMs: settings.toleranceMs,
    now,
    receiving: () => settings.mode === 'webhook' && sink !== undefined && botOpenId !== undefined,
    handle: handleEvent,
  });

  return {
    contractVersion: ADAPTER_CONTRACT_VERSION,
    platform: FEISHU_PLATFORM,
    limits: FEISHU_LIMITS,
    mode: settings.mode,
    handleWebhook,
    ...(settings.homeChannel !== undefined ? { homeChannel: { chatId: settings.homeChannel } } : {}),
    // `POST /feishu/webhook`, in webhook mode. Access `signed`: the handler checks the signature
    // (or the verification token) before it reads anything.
    ...(settings.mode === 'webhook'
      ? {
          routes: {
            prefix: FEISHU_WEBHOOK_PREFIX,
            register: (app) => registerFeishuWebhook(app, handleWebhook),
          },
        }
      : {}),

    async start(nextSink) {
      if (sink !== undefined) return;
      sink = nextSink;
      const ready = await identity.attempt();
      if (!ready) identity.retryInBackground();
      if (settings.mode === 'websocket') {
        longConnection = createLongConnection({
          sdk: await loadLarkSdk(),
          settings,
          logger,
          handle: handleEvent,
        });
        await longConnection.start();
      }
    },

    async stop() {
      identity.stop();
      const connection = longConnection;
      longConnection = undefined;
      connection?.close();
      await dispatcher.idle();
      sink = undefined;
    },

    async health() {
      const base = identity.health(sink !== undefined);
      if (!base.ok || longConnection === undefined) return base;
      return longConnection.health();
    },

    sendText: (to, message) => outbound.sendText(to, message),
    editText: (to, messageId, message) => outbound.editText(to, messageId, message),
    sendPrompt: (to, prompt) => outbound.sendPrompt(to, prompt),
    // Feishu has no typing indicator, no command menu, and toasts only in a callback's answer.
    async sendTyping() {},
    async answerAction() {},
    async setCommands() {},
  };
}
