import type { Config } from '../../config/config-schema.js';

/** `platforms.discord` (and the gateway switches the adapter honours), resolved once at start. */
export interface DiscordSettings {
  readonly requireMention: boolean;
  readonly autoThread: boolean;
  readonly allowBots: 'none' | 'mentions' | 'all';
  readonly reactions: boolean;
  readonly freeResponse: ReadonlySet<string>;
  readonly ignored: ReadonlySet<string>;
  /** Empty: every channel. */
  readonly allowedChannels: ReadonlySet<string>;
  /** `gateway.group_reply: all`: unaddressed server messages go to the gateway too. */
  readonly groupReplyAll: boolean;
  readonly commandSync: 'off' | 'guild' | 'global';
  readonly maxEventFailures: number;
  readonly reconnectAfterMs: number;
}

export function discordSettings(config: Config): DiscordSettings {
  const section = config.platforms.discord;
  return {
    requireMention: section.require_mention,
    autoThread: section.auto_thread,
    allowBots: section.allow_bots,
    reactions: section.reactions,
    freeResponse: new Set(section.free_response_channels),
    ignored: new Set(section.ignored_channels),
    allowedChannels: new Set(section.allowed_channels),
    groupReplyAll: config.gateway.group_reply === 'all',
    commandSync: section.command_sync,
    maxEventFailures: section.max_event_failures,
    reconnectAfterMs: section.reconnect_after_ms,
  };
}
