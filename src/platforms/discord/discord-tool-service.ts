import {
  type APIChannel,
  type APIMessage,
  ChannelType,
  type REST,
  Routes,
  ThreadAutoArchiveDuration,
} from 'discord.js';
import type { Config } from '../../config/config-schema.js';
import { toPlatformError } from './discord-errors.js';
import { createDiscordRest } from './discord-rest.js';

const THREAD_TYPES = new Set<number>([
  ChannelType.AnnouncementThread,
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
]);
const SNOWFLAKE = /^\d{1,20}$/;

/**
 * What the `discord` and `discord_admin` tools do on Discord, as REST calls (no gateway, so it
 * works in worker processes). The composition root adds the admin check and hands it to the tools
 * as `services.discord` (the tools declare the shape; platforms import no tool code).
 */
export function createDiscordToolOperations(options: { readonly rest: REST; readonly token: string }) {
  const { rest, token } = options;
  async function call<T>(run: () => Promise<unknown>): Promise<T> {
    try {
      return (await run()) as T;
    } catch (error) {
      throw toPlatformError(error, token);
    }
  }
  const id = (value: string, what: string): string => {
    if (!SNOWFLAKE.test(value)) throw new Error(`${what} must be a Discord id`);
    return value;
  };
  return {
    async channelInfo(channelId: string) {
      const channel = await call<APIChannel>(() => rest.get(Routes.channel(id(channelId, 'channel'))));
      return {
        id: channel.id,
        guildId: 'guild_id' in channel && typeof channel.guild_id === 'string' ? channel.guild_id : undefined,
        parentId:
          'parent_id' in channel && typeof channel.parent_id === 'string' ? channel.parent_id : undefined,
        isThread: THREAD_TYPES.has(channel.type),
        name: 'name' in channel && typeof channel.name === 'string' ? channel.name : undefined,
      };
    },

    async recentMessages(channelId: string, limit: number) {
      const messages = await call<APIMessage[]>(() =>
        rest.get(Routes.channelMessages(id(channelId, 'channel')), {
          query: new URLSearchParams({ limit: String(Math.min(100, Math.max(1, limit))) }),
        }),
      );
      return messages.map((message) => ({
        id: message.id,
        authorId: message.author.id,
        authorName: message.author.global_name ?? message.author.username,
        authorIsBot: message.author.bot === true || message.webhook_id !== undefined,
        content: message.content,
        createdAt: message.timestamp,
        ...(message.message_reference?.message_id !== undefined
          ? { replyTo: message.message_reference.message_id }
          : {}),
        attachments: message.attachments.length,
        pinned: message.pinned,
      }));
    },

    async react(channelId: string, messageId: string, emoji: string) {
      await call(() =>
        rest.put(
          Routes.channelMessageOwnReaction(
            id(channelId, 'channel'),
            id(messageId, 'message_id'),
            encodeURIComponent(emoji),
          ),
        ),
      );
    },

    async createThread(channelId: string, name: string, fromMessageId?: string) {
      const thread = await call<APIChannel>(() =>
        rest.post(
          fromMessageId === undefined
            ? Routes.threads(id(channelId, 'channel'))
            : Routes.threads(id(channelId, 'channel'), id(fromMessageId, 'message_id')),
          {
            body: {
              name,
              auto_archive_duration: ThreadAutoArchiveDuration.OneDay,
              ...(fromMessageId === undefined ? { type: ChannelType.PublicThread } : {}),
            },
          },
        ),
      );
      return {
        id: thread.id,
        name: 'name' in thread && typeof thread.name === 'string' ? thread.name : name,
      };
    },

    async pin(channelId: string, messageId: string) {
      await call(() =>
        rest.put(Routes.channelMessagesPin(id(channelId, 'channel'), id(messageId, 'message_id'))),
      );
    },

    async setTopic(channelId: string, topic: string, reason: string) {
      await call(() => rest.patch(Routes.channel(id(channelId, 'channel')), { body: { topic }, reason }));
    },

    async setSlowmode(channelId: string, seconds: number, reason: string) {
      await call(() =>
        rest.patch(Routes.channel(id(channelId, 'channel')), {
          body: { rate_limit_per_user: seconds },
          reason,
        }),
      );
    },

    async timeoutMember(guildId: string, userId: string, until: Date | undefined, reason: string) {
      await call(() =>
        rest.patch(Routes.guildMember(id(guildId, 'server'), id(userId, 'user_id')), {
          body: { communication_disabled_until: until === undefined ? null : until.toISOString() },
          reason,
        }),
      );
    },
  };
}

export type DiscordToolOperations = ReturnType<typeof createDiscordToolOperations>;

/** The operations as configured: undefined without DISCORD_BOT_TOKEN. */
export function discordToolOperationsFromConfig(config: Config): DiscordToolOperations | undefined {
  const settings = config.platforms.discord;
  if (settings.bot_token === undefined) return undefined;
  const rest = createDiscordRest({
    apiRoot: settings.api_root ?? 'https://discord.com/api',
    token: settings.bot_token,
  });
  return createDiscordToolOperations({ rest, token: settings.bot_token });
}
