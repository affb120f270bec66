import type { FakeButton, FakeMessage } from './fake-state.js';
import { chatObject, type FakeUser, userObject } from './fake-updates.js';
import { parseTelegramHtml } from './telegram-html.js';

/** A Bot API answer: the result, or an error envelope. */
export type MethodResult =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly error_code: number; readonly description: string };

export const ok = (result: unknown): MethodResult => ({ ok: true, result });
export const fail = (error_code: number, description: string): MethodResult => ({
  ok: false,
  error_code,
  description,
});

/** Outbound message state the send/edit methods work on. */
export interface MessageStore {
  readonly bot: FakeUser;
  readonly messages: Map<number, FakeMessage>;
  readonly blocked: Set<number>;
  nextMessageId(): number;
}

function keyboardOf(markup: unknown): FakeButton[][] | string {
  if (markup === undefined) return [];
  const rows = (markup as { inline_keyboard?: unknown }).inline_keyboard;
  if (!Array.isArray(rows)) return [];
  const out: FakeButton[][] = [];
  for (const row of rows) {
    if (!Array.isArray(row)) return 'Bad Request: inline keyboard rows must be arrays';
    const buttons: FakeButton[] = [];
    for (const button of row as { text?: unknown; callback_data?: unknown }[]) {
      const data = typeof button.callback_data === 'string' ? button.callback_data : '';
      const bytes = Buffer.byteLength(data, 'utf8');
      if (bytes < 1 || bytes > 64) return 'Bad Request: BUTTON_DATA_INVALID';
      buttons.push({ text: String(button.text ?? ''), data });
    }
    out.push(buttons);
  }
  return out;
}

/** Parses the text as Telegram would: the shown text, or the refusal. */
function shownText(payload: Record<string, unknown>): { text: string } | MethodResult {
  const raw = typeof payload['text'] === 'string' ? payload['text'] : '';
  let text = raw;
  if (payload['parse_mode'] === 'HTML') {
    const parsed = parseTelegramHtml(raw);
    if (!parsed.ok) return fail(400, `Bad Request: can't parse entities: ${parsed.error}`);
    text = parsed.text;
  } else if (payload['parse_mode'] !== undefined) {
    return fail(400, 'Bad Request: unsupported parse_mode in this fake');
  }
  if (text.trim() === '') return fail(400, 'Bad Request: message text is empty');
  if (text.length > 4096) return fail(400, 'Bad Request: message is too long');
  return { text };
}

export function messageObject(message: FakeMessage, bot: FakeUser): Record<string, unknown> {
  return {
    message_id: message.messageId,
    date: Math.floor(Date.now() / 1000),
    chat: chatObject(message.chatId),
    from: userObject(bot),
    text: message.text,
    ...(message.threadId !== undefined
      ? { message_thread_id: message.threadId, is_topic_message: true }
      : {}),
    ...(message.buttons.length > 0
      ? {
          reply_markup: {
            inline_keyboard: message.buttons.map((row) =>
              row.map((b) => ({ text: b.text, callback_data: b.data })),
            ),
          },
        }
      : {}),
  };
}

export function sendMessage(store: MessageStore, payload: Record<string, unknown>): MethodResult {
  const chatId = Number(payload['chat_id']);
  if (!Number.isInteger(chatId)) return fail(400, 'Bad Request: chat not found');
  if (store.blocked.has(chatId)) return fail(403, 'Forbidden: bot was blocked by the user');
  const shown = shownText(payload);
  if ('ok' in shown) return shown;
  const buttons = keyboardOf(payload['reply_markup']);
  if (typeof buttons === 'string') return fail(400, buttons);
  const reply = payload['reply_parameters'] as { message_id?: unknown } | undefined;
  const thread = payload['message_thread_id'];
  const message: FakeMessage = {
    messageId: store.nextMessageId(),
    chatId,
    threadId: typeof thread === 'number' ? thread : undefined,
    text: shown.text,
    raw: String(payload['text']),
    parseMode: typeof payload['parse_mode'] === 'string' ? payload['parse_mode'] : undefined,
    buttons,
    replyTo: typeof reply?.message_id === 'number' ? reply.message_id : undefined,
    edits: 0,
  };
  store.messages.set(message.messageId, message);
  return ok(messageObject(message, store.bot));
}

function findMessage(store: MessageStore, payload: Record<string, unknown>): FakeMessage | undefined {
  const message = store.messages.get(Number(payload['message_id']));
  return message !== undefined && message.chatId === Number(payload['chat_id']) ? message : undefined;
}

export function editMessageText(store: MessageStore, payload: Record<string, unknown>): MethodResult {
  const message = findMessage(store, payload);
  if (message === undefined) return fail(400, 'Bad Request: message to edit not found');
  const shown = shownText(payload);
  if ('ok' in shown) return shown;
  const buttons = keyboardOf(payload['reply_markup']);
  if (typeof buttons === 'string') return fail(400, buttons);
  if (message.text === shown.text && JSON.stringify(message.buttons) === JSON.stringify(buttons)) {
    return fail(
      400,
      'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
    );
  }
  message.text = shown.text;
  message.raw = String(payload['text']);
  message.parseMode = typeof payload['parse_mode'] === 'string' ? payload['parse_mode'] : undefined;
  message.buttons = buttons;
  message.edits += 1;
  return ok(messageObject(message, store.bot));
}

export function editMessageReplyMarkup(store: MessageStore, payload: Record<string, unknown>): MethodResult {
  const message = findMessage(store, payload);
  if (message === undefined) return fail(400, 'Bad Request: message to edit not found');
  const buttons = keyboardOf(payload['reply_markup']);
  if (typeof buttons === 'string') return fail(400, buttons);
  message.buttons = buttons;
  message.edits += 1;
  return ok(messageObject(message, store.bot));
}
