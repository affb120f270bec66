import { HermesError } from '../../errors/hermes-error.js';

/** The Discord conversation a tool call belongs to: the channel (or thread) of its session. */
export interface DiscordConversation {
  /** Where messages of the conversation are: the thread's own id for a thread. */
  readonly channelId: string;
  readonly kind: 'dm' | 'channel' | 'thread';
}

const SNOWFLAKE = /^\d{1,20}$/;

/**
 * Reads the conversation from a Discord session key
 * (`agent:<ns>:discord:<dm|group|channel|thread>:<chat>[:<thread>][:<user>]`). Only the session
 * decides where a tool acts; anything else is refused.
 */
export function discordConversation(sessionKey: string, platform: string | undefined): DiscordConversation {
  const parts = sessionKey.split(':');
  const [head, , keyPlatform, chatType, chatId, second] = parts;
  const refuse = (): never => {
    throw new HermesError('usage', 'This tool works only in a Discord conversation.');
  };
  if (head !== 'agent' || keyPlatform !== 'discord' || (platform !== undefined && platform !== 'discord'))
    refuse();
  if (chatId === undefined || !SNOWFLAKE.test(chatId)) return refuse();
  switch (chatType) {
    case 'dm':
      return { channelId: chatId, kind: 'dm' };
    case 'group':
    case 'channel':
      return { channelId: chatId, kind: 'channel' };
    case 'thread':
      if (second === undefined || !SNOWFLAKE.test(second)) return refuse();
      return { channelId: second, kind: 'thread' };
    default:
      return refuse();
  }
}
