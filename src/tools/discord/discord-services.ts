/**
 * What the `discord` and `discord_admin` tools need, added to ToolServices by declaration merging.
 * The composition root provides it when DISCORD_BOT_TOKEN is set (REST only, so it works in
 * worker processes too); without it both tools are unavailable. Every method acts on ids the tool
 * took from the session (its conversation), never on a channel the model names.
 */

export interface DiscordMessageSummary {
  readonly id: string;
  readonly authorId: string;
  readonly authorName: string;
  readonly authorIsBot: boolean;
  readonly content: string;
  /** ISO 8601. */
  readonly createdAt: string;
  readonly replyTo?: string;
  readonly attachments: number;
  readonly pinned: boolean;
}

export interface DiscordChannelInfo {
  readonly id: string;
  /** Undefined for DMs. */
  readonly guildId: string | undefined;
  /** Threads: the channel they belong to. */
  readonly parentId: string | undefined;
  readonly isThread: boolean;
  readonly name: string | undefined;
}

export interface DiscordToolService {
  channelInfo(channelId: string): Promise<DiscordChannelInfo>;
  /** Newest first, at most `limit` (1-100). */
  recentMessages(channelId: string, limit: number): Promise<DiscordMessageSummary[]>;
  react(channelId: string, messageId: string, emoji: string): Promise<void>;
  /** A thread on a message, or a public thread of its own. */
  createThread(
    channelId: string,
    name: string,
    fromMessageId?: string,
  ): Promise<{ id: string; name: string }>;
  pin(channelId: string, messageId: string): Promise<void>;
  setTopic(channelId: string, topic: string, reason: string): Promise<void>;
  setSlowmode(channelId: string, seconds: number, reason: string): Promise<void>;
  /** `until` undefined lifts a timeout. */
  timeoutMember(guildId: string, userId: string, until: Date | undefined, reason: string): Promise<void>;
  /** Admin by configuration (`platforms.discord.admin_users`, `gateway.admin_users`). */
  isAdmin(userId: string): boolean;
}

declare module '../../registry/tool-services.js' {
  interface ToolServices {
    readonly discord?: DiscordToolService;
  }
}
