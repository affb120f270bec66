import type { ChatRef, InboundEvent, Sender } from '../adapter.js';
import type {
  TelegramCallback,
  TelegramEntity,
  TelegramMessage,
  TelegramUpdate,
  TelegramUser,
} from './telegram-update.js';

export const TELEGRAM_PLATFORM = 'telegram';

/** Who the bot is (from getMe): needed to tell mentions, replies and `/cmd@bot` apart. */
export interface BotIdentity {
  readonly id: number;
  readonly username: string;
}

/** A file on a message, fetched (size-capped) before the event goes to the gateway. */
export interface Attachment {
  readonly kind: 'photo' | 'document';
  readonly fileId: string;
  readonly fileUniqueId: string;
  readonly fileName?: string;
  readonly mimeType?: string;
  readonly size?: number;
}

export type Translation =
  | {
      readonly kind: 'event';
      readonly event: InboundEvent;
      /** Events of one lane are handed over in order (the chat, or its forum topic). */
      readonly lane: string;
      readonly attachment?: Attachment;
    }
  /** Nothing for the gateway; a callback query still gets its (empty) answer. */
  | { readonly kind: 'skip'; readonly reason: string; readonly callbackQueryId?: string };

const COMMAND = /^\/([A-Za-z0-9_]{1,64})(?:@([A-Za-z0-9_]{1,64}))?(?:\s+([\s\S]*))?$/;

function senderOf(user: TelegramUser): Sender {
  const name = user.username ?? user.first_name;
  return { userId: String(user.id), ...(name !== '' ? { userName: name } : {}), isBot: user.is_bot };
}

function chatOf(
  chat: { id: number; type: string },
  message: { message_thread_id?: number | undefined; is_topic_message?: boolean | undefined },
): ChatRef {
  const threadId =
    message.is_topic_message === true && message.message_thread_id !== undefined
      ? String(message.message_thread_id)
      : undefined;
  return {
    chatId: String(chat.id),
    chatType: chat.type === 'private' ? 'dm' : 'group',
    ...(threadId !== undefined ? { threadId } : {}),
  };
}

function laneOf(chat: ChatRef): string {
  return `${chat.chatId}:${chat.threadId ?? ''}`;
}

function mentionsBot(text: string, entities: readonly TelegramEntity[], bot: BotIdentity): boolean {
  const handle = `@${bot.username}`.toLowerCase();
  return entities.some(
    (entity) =>
      (entity.type === 'mention' &&
        text.slice(entity.offset, entity.offset + entity.length).toLowerCase() === handle) ||
      (entity.type === 'text_mention' && entity.user?.id === bot.id),
  );
}

function attachmentOf(message: TelegramMessage): Attachment | undefined {
  const photo = message.photo?.at(-1); // Telegram lists sizes smallest first
  if (photo !== undefined) {
    return {
      kind: 'photo',
      fileId: photo.file_id,
      fileUniqueId: photo.file_unique_id,
      ...(photo.file_size !== undefined ? { size: photo.file_size } : {}),
    };
  }
  const doc = message.document;
  if (doc === undefined) return undefined;
  return {
    kind: 'document',
    fileId: doc.file_id,
    fileUniqueId: doc.file_unique_id,
    ...(doc.file_name !== undefined ? { fileName: doc.file_name } : {}),
    ...(doc.mime_type !== undefined ? { mimeType: doc.mime_type } : {}),
    ...(doc.file_size !== undefined ? { size: doc.file_size } : {}),
  };
}

function translateMessage(
  updateId: number,
  message: TelegramMessage,
  bot: BotIdentity,
  receivedAt: number,
): Translation {
  const from = message.from;
  if (from === undefined) return { kind: 'skip', reason: 'no sender' };
  if (from.id === bot.id) return { kind: 'skip', reason: 'own message' };
  if (message.chat.type === 'channel') return { kind: 'skip', reason: 'channel post' };
  const chat = chatOf(message.chat, message);
  const text = message.text ?? message.caption ?? '';
  const entities = message.entities ?? message.caption_entities ?? [];
  const attachment = attachmentOf(message);
  const replied =
    message.reply_to_message !== undefined && message.reply_to_message.forum_topic_created === undefined
      ? message.reply_to_message
      : undefined;
  const base = {
    platform: TELEGRAM_PLATFORM,
    eventId: String(updateId),
    chat,
    sender: senderOf(from),
    receivedAt,
    messageId: String(message.message_id),
  };
  const replyToBot = replied?.from?.id === bot.id;

  const command = message.text !== undefined ? COMMAND.exec(message.text) : null;
  if (command !== null) {
    const target = command[2];
    if (target !== undefined && target.toLowerCase() !== bot.username.toLowerCase()) {
      return { kind: 'skip', reason: 'command for another bot' };
    }
    // A bare command in a group is meant for the bots there; `/cmd@other` was dropped above.
    return {
      kind: 'event',
      lane: laneOf(chat),
      event: {
        ...base,
        kind: 'command',
        name: (command[1] ?? '').toLowerCase(),
        args: (command[3] ?? '').trim(),
        addressed: true,
      },
    };
  }
  if (text.trim() === '' && attachment === undefined) return { kind: 'skip', reason: 'nothing to read' };
  const addressed = chat.chatType === 'dm' || replyToBot || mentionsBot(text, entities, bot);
  const leadingMention = new RegExp(`^@${bot.username}\\b[,:]?\\s*`, 'i');
  return {
    kind: 'event',
    lane: laneOf(chat),
    ...(attachment !== undefined ? { attachment } : {}),
    event: {
      ...base,
      kind: 'message',
      text: text.replace(leadingMention, ''),
      addressed,
      ...(replied !== undefined ? { replyToMessageId: String(replied.message_id) } : {}),
    },
  };
}

function translateCallback(updateId: number, query: TelegramCallback, receivedAt: number): Translation {
  const message = query.message;
  if (message === undefined || query.data === undefined) {
    return { kind: 'skip', reason: 'callback without message or data', callbackQueryId: query.id };
  }
  const chat = chatOf(message.chat, message);
  return {
    kind: 'event',
    lane: laneOf(chat),
    event: {
      platform: TELEGRAM_PLATFORM,
      kind: 'action',
      eventId: String(updateId),
      chat,
      sender: senderOf(query.from),
      receivedAt,
      messageId: String(message.message_id),
      data: query.data,
      platformOptions: { callbackQueryId: query.id },
    },
  };
}

/** One update as the gateway's inbound event, or why there is none. */
export function translateUpdate(update: TelegramUpdate, bot: BotIdentity, receivedAt: number): Translation {
  if (update.callback_query !== undefined) {
    return translateCallback(update.update_id, update.callback_query, receivedAt);
  }
  if (update.message !== undefined)
    return translateMessage(update.update_id, update.message, bot, receivedAt);
  return { kind: 'skip', reason: 'update kind not handled' };
}
