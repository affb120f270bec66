import type { ChatRef, InboundEvent, Sender } from '../adapter.js';
import type { DiscordSettings } from './discord-settings.js';

export const DISCORD_PLATFORM = 'discord';

/** What the adapter reads of a Discord message (taken from discord.js' Message, see view-of-message.ts). */
export interface DiscordMessageView {
  readonly id: string;
  /** Where it was posted: a DM channel, a server channel or a thread. */
  readonly channelId: string;
  /** Undefined in DMs. */
  readonly guildId: string | undefined;
  /** Threads: the channel the thread belongs to. */
  readonly parentId: string | undefined;
  readonly isThread: boolean;
  /** Threads: who started it. */
  readonly threadOwnerId: string | undefined;
  /** Server text channels that can hold threads (text and announcement channels). */
  readonly canHoldThreads: boolean;
  readonly authorId: string;
  readonly authorName: string;
  /** A bot account or a webhook. */
  readonly authorIsBot: boolean;
  /** A user's own message (default or reply), not a system notice (pins, joins, thread starters…). */
  readonly isUserMessage: boolean;
  readonly content: string;
  /** The bot was @-mentioned (its user, or its managed role); @everyone does not count. */
  readonly mentionsBot: boolean;
  readonly replyToId: string | undefined;
  readonly repliedToBot: boolean;
  /** Role ids of the author in the server (empty in DMs). */
  readonly roles: readonly string[];
  readonly attachments: readonly DiscordAttachmentView[];
}

export interface DiscordAttachmentView {
  readonly id: string;
  readonly url: string;
  readonly name: string;
  readonly contentType: string | undefined;
  readonly size: number;
}

export type MessageTranslation =
  | {
      readonly kind: 'event';
      readonly event: InboundEvent;
      /** Events of one lane are handed over in order (the channel, the thread or the DM). */
      readonly lane: string;
      /** Open a thread on the message and move the conversation there (auto-thread). */
      readonly openThread?: { readonly name: string };
      readonly attachments: readonly DiscordAttachmentView[];
    }
  | { readonly kind: 'skip'; readonly reason: string };

const COMMAND = /^\/([A-Za-z0-9_-]{1,32})(?:\s+([\s\S]*))?$/;
/** Discord allows thread names of up to 100 characters; Hermes uses the first 80 of the message. */
const THREAD_NAME_CHARS = 80;

/** The text with every mention of the bot taken out (a leading one with its punctuation). */
export function withoutBotMention(content: string, botId: string): string {
  const mention = new RegExp(`<@!?${botId}>`, 'g');
  return content
    .replace(new RegExp(`^\\s*<@!?${botId}>[,:]?\\s*`), '')
    .replace(mention, '')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** A thread name from the message: its first line, at most 80 characters, never empty. */
export function threadNameOf(text: string, authorName: string): string {
  const line = (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
  const name = line === '' ? `Chat with ${authorName}` : line;
  const chars = [...name];
  return chars.length > THREAD_NAME_CHARS ? `${chars.slice(0, THREAD_NAME_CHARS - 1).join('')}…` : name;
}

function inList(list: ReadonlySet<string>, view: DiscordMessageView): boolean {
  return list.has(view.channelId) || (view.parentId !== undefined && list.has(view.parentId));
}

function chatOf(view: DiscordMessageView): ChatRef {
  if (view.guildId === undefined) return { chatId: view.channelId, chatType: 'dm' };
  if (view.isThread && view.parentId !== undefined) {
    return { chatId: view.parentId, threadId: view.channelId, chatType: 'thread' };
  }
  return { chatId: view.channelId, chatType: 'group' };
}

/**
 * One Discord message as the gateway's inbound event, or why there is none. DMs are always
 * addressed; in servers a message counts when the bot is mentioned or replied to, in a
 * free-response channel, in a thread the bot started, or everywhere when mentions are not
 * required. Ignored channels, channels outside `allowed_channels`, system notices, the bot's own
 * messages and (by `allow_bots`) other bots' messages are skipped.
 */
export function translateMessage(
  view: DiscordMessageView,
  bot: { readonly id: string },
  settings: DiscordSettings,
  receivedAt: number,
): MessageTranslation {
  if (view.authorId === bot.id) return { kind: 'skip', reason: 'own message' };
  if (!view.isUserMessage) return { kind: 'skip', reason: 'system message' };
  if (view.authorIsBot) {
    if (settings.allowBots === 'none') return { kind: 'skip', reason: 'bot (allow_bots: none)' };
    if (settings.allowBots === 'mentions' && !view.mentionsBot) {
      return { kind: 'skip', reason: 'bot without a mention (allow_bots: mentions)' };
    }
  }
  const dm = view.guildId === undefined;
  if (!dm) {
    if (inList(settings.ignored, view)) return { kind: 'skip', reason: 'ignored channel' };
    if (settings.allowedChannels.size > 0 && !inList(settings.allowedChannels, view)) {
      return { kind: 'skip', reason: 'channel not in allowed_channels' };
    }
  }
  const freeResponse = !dm && inList(settings.freeResponse, view);
  const ownThread = view.isThread && view.threadOwnerId === bot.id;
  const addressed =
    dm || view.mentionsBot || view.repliedToBot || freeResponse || ownThread || !settings.requireMention;
  if (!addressed && !settings.groupReplyAll) return { kind: 'skip', reason: 'not addressed' };

  const text = withoutBotMention(view.content, bot.id);
  const chat = chatOf(view);
  const sender: Sender = {
    userId: view.authorId,
    ...(view.authorName !== '' ? { userName: view.authorName } : {}),
    isBot: view.authorIsBot,
    ...(view.roles.length > 0 ? { roles: [...view.roles] } : {}),
  };
  const base = {
    platform: DISCORD_PLATFORM,
    eventId: view.id,
    chat,
    sender,
    receivedAt,
    messageId: view.id,
  };
  const lane = view.channelId;
  const openThread =
    settings.autoThread && !dm && !view.isThread && view.canHoldThreads && view.mentionsBot && !freeResponse
      ? { name: threadNameOf(text, view.authorName) }
      : undefined;
  const moved = (event: InboundEvent): MessageTranslation => ({
    kind: 'event',
    event,
    lane,
    attachments: event.kind === 'message' ? view.attachments : [],
    ...(openThread !== undefined && event.kind === 'message' ? { openThread } : {}),
  });

  const command = COMMAND.exec(text);
  if (command !== null) {
    return moved({
      ...base,
      kind: 'command',
      name: (command[1] ?? '').toLowerCase(),
      args: (command[2] ?? '').trim(),
      addressed,
    });
  }
  if (text === '' && view.attachments.length === 0) return { kind: 'skip', reason: 'nothing to read' };
  return moved({
    ...base,
    kind: 'message',
    text,
    addressed,
    ...(view.replyToId !== undefined ? { replyToMessageId: view.replyToId } : {}),
  });
}
