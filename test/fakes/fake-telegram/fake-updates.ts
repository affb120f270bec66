/** Builders of the Telegram objects the fake Bot API hands out (messages, users, entities). */

export interface FakeUser {
  readonly id: number;
  readonly first_name?: string;
  readonly username?: string;
  readonly is_bot?: boolean;
}

export type FakeChatType = 'private' | 'group' | 'supergroup';

export interface FakeEntity {
  readonly type: string;
  readonly offset: number;
  readonly length: number;
  readonly user?: FakeUser;
}

export function userObject(user: FakeUser): Record<string, unknown> {
  return {
    id: user.id,
    is_bot: user.is_bot ?? false,
    first_name: user.first_name ?? `User${user.id}`,
    ...(user.username !== undefined ? { username: user.username } : {}),
  };
}

/** A chat as Telegram describes it; negative ids are (super)groups, positive ones private chats. */
export function chatObject(chatId: number, type?: FakeChatType, forum = false): Record<string, unknown> {
  const kind = type ?? (chatId < 0 ? 'supergroup' : 'private');
  return {
    id: chatId,
    type: kind,
    ...(kind === 'private' ? { first_name: 'Chat' } : { title: `Group ${chatId}` }),
    ...(forum ? { is_forum: true } : {}),
  };
}

/** The entities Telegram would mark: a leading bot command and every @mention. */
export function entitiesOf(text: string): FakeEntity[] {
  const entities: FakeEntity[] = [];
  const command = /^\/[A-Za-z0-9_]+(?:@[A-Za-z0-9_]+)?/.exec(text);
  if (command !== null) entities.push({ type: 'bot_command', offset: 0, length: command[0].length });
  for (const match of text.matchAll(/(^|[^\w@])(@[A-Za-z][A-Za-z0-9_]{3,31})/g)) {
    const at = (match.index ?? 0) + (match[1] ?? '').length;
    entities.push({ type: 'mention', offset: at, length: (match[2] ?? '').length });
  }
  return entities;
}

export interface TextInput {
  readonly chatId: number;
  readonly from: FakeUser;
  readonly text?: string;
  readonly chatType?: FakeChatType;
  /** Forum topic id (message_thread_id with is_topic_message). */
  readonly threadId?: number;
  /** Replying to this message (sent by the bot when `replyToBot`). */
  readonly replyTo?: { readonly messageId: number; readonly from: FakeUser };
  readonly photoFileId?: string;
  readonly document?: { readonly fileId: string; readonly fileName: string; readonly size?: number };
  /** Use this update id (a duplicate or a replay); default the next one. */
  readonly updateId?: number;
}

export interface ClickInput {
  readonly messageId: number;
  readonly from: FakeUser;
  /** The button's callback_data, or its label. */
  readonly data?: string;
  readonly label?: string;
}

/** The Message of a user's text, caption, photo or document. */
export function textMessage(input: TextInput, messageId: number): Record<string, unknown> {
  const text = input.text ?? '';
  const caption = input.photoFileId !== undefined || input.document !== undefined;
  const message: Record<string, unknown> = {
    message_id: messageId,
    date: Math.floor(Date.now() / 1000),
    chat: chatObject(input.chatId, input.chatType, input.threadId !== undefined),
    from: userObject(input.from),
    ...(text !== ''
      ? caption
        ? { caption: text, caption_entities: entitiesOf(text) }
        : { text, entities: entitiesOf(text) }
      : {}),
    ...(input.threadId !== undefined ? { message_thread_id: input.threadId, is_topic_message: true } : {}),
    ...(input.replyTo !== undefined
      ? {
          reply_to_message: {
            message_id: input.replyTo.messageId,
            date: 0,
            chat: chatObject(input.chatId),
            from: userObject(input.replyTo.from),
          },
        }
      : {}),
    ...(input.photoFileId !== undefined
      ? {
          photo: [
            { file_id: `${input.photoFileId}-small`, file_unique_id: 'small', width: 90, height: 90 },
            {
              file_id: input.photoFileId,
              file_unique_id: `u-${input.photoFileId}`,
              width: 800,
              height: 600,
            },
          ],
        }
      : {}),
    ...(input.document !== undefined
      ? {
          document: {
            file_id: input.document.fileId,
            file_unique_id: `u-${input.document.fileId}`,
            file_name: input.document.fileName,
            ...(input.document.size !== undefined ? { file_size: input.document.size } : {}),
          },
        }
      : {}),
  };
  return message;
}

/** The callback_query of a press on a button of `message` (a message the bot sent, when known). */
export function callbackQuery(
  id: string,
  from: FakeUser,
  data: string,
  messageId: number,
  message:
    | { readonly chatId: number; readonly threadId: number | undefined; readonly text: string }
    | undefined,
): Record<string, unknown> {
  const chatId = message?.chatId ?? from.id;
  return {
    id,
    from: userObject(from),
    chat_instance: `ci-${chatId}`,
    data,
    message: {
      message_id: messageId,
      date: Math.floor(Date.now() / 1000),
      chat: chatObject(chatId, undefined, message?.threadId !== undefined),
      ...(message?.threadId !== undefined
        ? { message_thread_id: message.threadId, is_topic_message: true }
        : {}),
      text: message?.text ?? '',
    },
  };
}
