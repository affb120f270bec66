import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  Client,
  type ClientOptions,
  Events,
  GatewayDispatchEvents,
  GatewayIntentBits,
  Partials,
  type REST,
} from 'discord.js';
import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.js';
import type { SharedFiles } from '../../lib/shared-files.js';
import {
  ADAPTER_CONTRACT_VERSION,
  type ChatAddress,
  type CommandInfo,
  type InboundEvent,
  type InboundSink,
  type PlatformAdapter,
  type PlatformLimits,
} from '../adapter.js';
import { sharedAttachmentsOf, sharedOption } from '../shared/shared-attachments.js';
import { createCommandSync } from './command-sync.js';
import { addDiscordAttachments } from './discord-attachments.js';
import { discordCacheOptions } from './discord-cache-options.js';
import { createDiscordConnection } from './discord-connection.js';
import { errorMessage, toPlatformError } from './discord-errors.js';
import { createDiscordInbound } from './discord-inbound.js';
import { channelOf, createDiscordOutbound, DISCORD_MESSAGE_CHARS } from './discord-outbound.js';
import { createDiscordRest } from './discord-rest.js';
import { discordSettings } from './discord-settings.js';
import { createDmRoleLookup } from './dm-roles.js';
import { type AttemptOutcome, createEventDispatcher } from './event-dispatcher.js';
import { guardOrphanSocketErrors } from './guard-socket-errors.js';
import { InteractionReplies } from './interaction-replies.js';
import { DISCORD_CUSTOM_ID_BYTES } from './prompt-components.js';
import { SettledDestroyStrategy, type ShardManager } from './settled-destroy-strategy.js';
import { DISCORD_PLATFORM } from './translate-message.js';

export const DISCORD_LIMITS: PlatformLimits = {
  maxMessageLength: DISCORD_MESSAGE_CHARS,
  // Discord counts characters; UTF-16 units are never fewer, so a part that fits them fits Discord.
  lengthUnit: 'utf16',
  maxActionDataBytes: DISCORD_CUSTOM_ID_BYTES,
  supportsButtons: true,
  supportsEdit: true,
  supportsTyping: true,
  commandPrefix: '/',
};

/** Guilds, guild messages, message content (privileged: enable it in the portal) and DMs. */
export const DISCORD_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.DirectMessages,
];

const DEFAULT_API_ROOT = 'https://discord.com/api';
/** Milliseconds `stop` waits for events being handed over. */
const STOP_WAIT_MS = 10_000;
const REACTION = { received: '👀', done: '✅', failed: '❌' } as const;

export interface DiscordAdapterOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly token: string;
  /** REST base (DISCORD_API_ROOT / platforms.discord.api_root); the gateway URL comes from it. */
  readonly apiRoot?: string;
  /** Clock for `receivedAt` (epoch ms). */
  readonly now?: () => number;
  /** First pause before a retry (hand-over, fresh connection), ms; default 1000. */
  readonly backoffMs?: number;
  /** How long `start` waits for the gateway before it returns anyway, ms; default 10 000. */
  readonly startWaitMs?: number;
  /** Extra discord.js client options (tests: `ws.buildIdentifyThrottler`). */
  readonly clientOptions?: Partial<ClientOptions>;
  /** Sees each hand-over attempt of an inbound event (metrics, tests). */
  readonly observe?: (eventId: string, outcome: AttemptOutcome) => void;
  /** The shared database's file store (DATABASE_URL): attachments are kept there too. */
  readonly sharedFiles?: SharedFiles;
}

export interface DiscordAdapter extends PlatformAdapter {
  /** The REST client (the Discord tools use the same queue). */
  readonly rest: REST;
  /** Shows how a message's turn ended (✅ / ❌ reaction) when reactions are on. */
  markOutcome(to: ChatAddress, messageId: string, outcome: 'done' | 'failed'): Promise<void>;
}

/** Builds the Discord platform on real discord.js: gateway for events, REST for everything sent. */
export function createDiscordAdapter(options: DiscordAdapterOptions): DiscordAdapter {
  const { config, token } = options;
  const logger = options.logger.child({ component: 'discord' });
  const settings = discordSettings(config);
  const now = options.now ?? Date.now;
  const apiRoot = (options.apiRoot ?? config.platforms.discord.api_root ?? DEFAULT_API_ROOT).replace(
    /\/+$/,
    '',
  );
  const backoffMs = options.backoffMs ?? 1000;
  guardOrphanSocketErrors((error) =>
    logger.warn({ err: errorMessage(error, token) }, 'discord: error on an abandoned gateway socket ignored'),
  );
  const rest = createDiscordRest({ apiRoot, token });
  const interactions = new InteractionReplies(rest, now);
  let sink: InboundSink | undefined;
  /** Messages showing 👀, by message id → channel. */
  const watching = new Map<string, string>();

  const connectionRef: { fatal: (reason: string) => void } = { fatal: () => undefined };
  const outbound = createDiscordOutbound({
    rest,
    token,
    logger,
    interactions,
    onTokenRejected: (detail) =>
      connectionRef.fatal(
        `Discord rejected the bot token (401): check DISCORD_BOT_TOKEN and restart (${detail})`,
      ),
  });
  const dispatcher = createEventDispatcher({
    logger,
    maxAttempts: settings.maxEventFailures,
    backoffMs,
    describe: (error) => errorMessage(error, token),
    ...(options.observe !== undefined ? { observe: options.observe } : {}),
  });

  async function react(channelId: string, messageId: string, emoji: string, remove = false): Promise<void> {
    try {
      await outbound.react(channelId, messageId, emoji, remove);
    } catch (error) {
      logger.debug({ messageId, err: toPlatformError(error, token).message }, 'discord reaction not set');
    }
  }

  const rolesInDm = createDmRoleLookup({
    rest,
    token,
    logger,
    allowedRoles: new Set(config.platforms.discord.allowed_roles),
    client: () => connection.client(),
    now,
  });
  const commands = createCommandSync({
    rest,
    token,
    logger,
    policy: settings.commandSync,
    onTokenRejected: (detail) => connectionRef.fatal(detail),
  });

  const inbound = createDiscordInbound({
    logger,
    token,
    rest,
    settings,
    dispatcher,
    interactions,
    outbound,
    sink: () => sink,
    now,
    accepted: (event: InboundEvent) => {
      if (!settings.reactions || event.kind !== 'message') return;
      const channelId = channelOf(
        event.chat.threadId === event.messageId ? { chatId: event.chat.chatId } : event.chat,
      );
      watching.set(event.messageId, channelId);
      if (watching.size > 1_000) watching.delete(watching.keys().next().value ?? '');
      void react(channelId, event.messageId, REACTION.received);
    },
    rolesInDm,
    withAttachments: (event, attachments) =>
      addDiscordAttachments(event, attachments, {
        logger,
        maxBytes: config.platforms.discord.download_max_bytes,
        inboxDir: join(config.home, 'inbox', 'discord'),
        attachImages: config.model.vision_model === undefined,
        describeError: (error) => errorMessage(error, token),
        ...sharedOption(sharedAttachmentsOf(config, options.sharedFiles)),
      }),
  });

  function buildClient(): Client {
    const client = new Client({
      intents: DISCORD_INTENTS,
      partials: [Partials.Channel],
      allowedMentions: { parse: [] },
      ...discordCacheOptions(),
      ...options.clientOptions,
      rest: { ...options.clientOptions?.rest, api: apiRoot, version: '10' },
      ws: {
        ...options.clientOptions?.ws,
        buildStrategy: (manager: ShardManager) => new SettledDestroyStrategy(manager),
      },
    });
    // Only the live client's events count: a replaced one may linger until it is closed.
    const live = () => sink !== undefined && connection.client() === client;
    client.on(Events.MessageCreate, (message) => {
      const botId = client.user?.id;
      if (!live() || botId === undefined) return;
      inbound.onMessage(message, botId);
    });
    client.on(Events.Raw, (packet: { t?: unknown; d?: unknown }) => {
      if (packet.t === GatewayDispatchEvents.InteractionCreate && live()) inbound.onInteraction(packet.d);
    });
    client.on(Events.GuildCreate, (guild) => {
      if (live() && connection.ready()) commands.onGuild(client, guild.id);
    });
    return client;
  }

  const connection = createDiscordConnection({
    logger,
    token,
    buildClient,
    onReady: (client) => void commands.onReady(client),
    reconnectAfterMs: settings.reconnectAfterMs,
    backoffMs,
    startWaitMs: options.startWaitMs ?? 10_000,
    now,
  });
  connectionRef.fatal = (reason) => connection.fatal(reason);

  return {
    contractVersion: ADAPTER_CONTRACT_VERSION,
    platform: DISCORD_PLATFORM,
    limits: DISCORD_LIMITS,
    rest,
    ...(config.platforms.discord.home_channel !== undefined
      ? { homeChannel: { chatId: config.platforms.discord.home_channel } }
      : {}),

    async start(nextSink) {
      if (sink !== undefined) return;
      sink = nextSink;
      await connection.start();
    },

    async stop() {
      if (sink === undefined) return;
      await connection.stop();
      dispatcher.close();
      // Events being handed over finish (a stuck one does not hold the shutdown for long).
      await Promise.race([dispatcher.idle(), sleep(STOP_WAIT_MS, undefined, { ref: false })]);
      sink = undefined;
    },

    async health() {
      if (sink === undefined) return { ok: false, reason: 'not started' };
      return connection.health();
    },

    async setCommands(list: readonly CommandInfo[]) {
      const client = connection.client();
      await commands.publish(list, connection.ready() ? client : undefined);
    },

    async markOutcome(_to, messageId, outcome) {
      const channelId = watching.get(messageId);
      if (channelId === undefined) return;
      watching.delete(messageId);
      await react(channelId, messageId, REACTION.received, true);
      await react(channelId, messageId, outcome === 'done' ? REACTION.done : REACTION.failed);
    },

    sendText: outbound.sendText,
    editText: outbound.editText,
    sendTyping: outbound.sendTyping,
    sendPrompt: outbound.sendPrompt,
    answerAction: outbound.answerAction,
  };
}
