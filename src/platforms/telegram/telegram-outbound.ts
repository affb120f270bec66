import { type Api, InlineKeyboard } from 'grammy';
import type { Logger } from 'pino';
import {
  type ActionPrompt,
  type ChatAddress,
  type CommandInfo,
  type InboundAction,
  type OutboundText,
  type PlatformAdapter,
  PlatformError,
  type SentMessage,
} from '../adapter.js';
import { renderTelegramHtml } from './render-telegram-html.js';
import { errorMessage, isEntityError, toPlatformError } from './telegram-errors.js';

/** Telegram's callback_data limit, bytes. */
export const TELEGRAM_CALLBACK_DATA_BYTES = 64;
/** Longest toast of answerCallbackQuery, characters. */
const TOAST_CHARS = 200;
const COMMAND_NAME = /^[a-z0-9_]{1,32}$/;

export interface TelegramOutboundOptions {
  readonly api: Api;
  readonly token: string;
  readonly logger: Logger;
  /** `html`: markdown answers are rendered to Telegram HTML; `plain`: everything is sent as text. */
  readonly parseMode: 'html' | 'plain';
}

export type TelegramOutbound = Pick<
  PlatformAdapter,
  'sendText' | 'editText' | 'sendTyping' | 'sendPrompt' | 'answerAction' | 'setCommands'
>;

function chatIdOf(to: ChatAddress): number | string {
  return /^-?\d+$/.test(to.chatId) ? Number(to.chatId) : to.chatId;
}

function threadOf(to: ChatAddress): { message_thread_id?: number } {
  return to.threadId !== undefined && /^\d+$/.test(to.threadId)
    ? { message_thread_id: Number(to.threadId) }
    : {};
}

function messageIdOf(messageId: string): number {
  if (!/^\d+$/.test(messageId))
    throw new PlatformError('not_found', `telegram message ${messageId} is unknown`);
  return Number(messageId);
}

/** Everything the bot sends, mapped onto Bot API calls; every failure is a token-free PlatformError. */
export function createTelegramOutbound(options: TelegramOutboundOptions): TelegramOutbound {
  const { api, token, logger } = options;

  /** The text as sent first: rendered HTML for markdown (when enabled), else the text as is. */
  function rendered(text: string, format: 'plain' | 'markdown' | undefined) {
    return format === 'markdown' && options.parseMode === 'html'
      ? { text: renderTelegramHtml(text), parse: { parse_mode: 'HTML' as const } }
      : { text, parse: {} };
  }

  /** Runs a call with formatting, and once more without it when Telegram refuses the entities. */
  async function withPlainFallback<T>(
    text: string,
    format: 'plain' | 'markdown' | undefined,
    call: (body: string, parse: { parse_mode?: 'HTML' }) => Promise<T>,
  ): Promise<T> {
    const first = rendered(text, format);
    try {
      return await call(first.text, first.parse);
    } catch (error) {
      if (first.parse.parse_mode === undefined || !isEntityError(error)) throw toPlatformError(error, token);
      logger.info({ err: errorMessage(error, token) }, 'telegram refused the formatting; sending it plain');
      try {
        return await call(text, {});
      } catch (plainError) {
        throw toPlatformError(plainError, token);
      }
    }
  }

  function keyboardOf(prompt: ActionPrompt): InlineKeyboard {
    if (prompt.choices.length === 0) throw new PlatformError('bad_request', 'a prompt needs choices');
    const keyboard = new InlineKeyboard();
    prompt.choices.forEach((choice, index) => {
      const bytes = Buffer.byteLength(choice.data, 'utf8');
      if (choice.data === '' || bytes > TELEGRAM_CALLBACK_DATA_BYTES) {
        throw new PlatformError(
          'bad_request',
          `button data must be 1-${TELEGRAM_CALLBACK_DATA_BYTES} bytes (got ${bytes})`,
        );
      }
      if (index > 0 && index % 2 === 0) keyboard.row();
      keyboard.text(choice.label, choice.data);
    });
    return keyboard;
  }

  return {
    async sendText(to, message: OutboundText): Promise<SentMessage> {
      const reply =
        message.replyToMessageId !== undefined && /^\d+$/.test(message.replyToMessageId)
          ? {
              reply_parameters: {
                message_id: Number(message.replyToMessageId),
                allow_sending_without_reply: true,
              },
            }
          : {};
      const sent = await withPlainFallback(message.text, message.format, (text, parse) =>
        api.sendMessage(chatIdOf(to), text, { ...parse, ...threadOf(to), ...reply }),
      );
      return { messageId: String(sent.message_id) };
    },

    async editText(to, messageId, message) {
      const id = messageIdOf(messageId);
      try {
        await withPlainFallback(message.text, message.format, (text, parse) =>
          api.editMessageText(chatIdOf(to), id, text, {
            ...parse,
            reply_markup: { inline_keyboard: [] },
          }),
        );
      } catch (error) {
        const cause = error instanceof PlatformError ? error : toPlatformError(error, token);
        if (/message is not modified/i.test(cause.message)) return;
        throw cause;
      }
    },

    async sendTyping(to) {
      try {
        await api.sendChatAction(chatIdOf(to), 'typing', threadOf(to));
      } catch (error) {
        throw toPlatformError(error, token);
      }
    },

    async sendPrompt(to, prompt) {
      const keyboard = keyboardOf(prompt);
      const sent = await withPlainFallback(prompt.text, prompt.format, (text, parse) =>
        api.sendMessage(chatIdOf(to), text, { ...parse, ...threadOf(to), reply_markup: keyboard }),
      );
      return { messageId: String(sent.message_id) };
    },

    async answerAction(action: InboundAction, notice: string) {
      const id = action.platformOptions?.['callbackQueryId'];
      if (typeof id !== 'string' || id === '') return;
      const text = notice.length > TOAST_CHARS ? `${notice.slice(0, TOAST_CHARS - 1)}…` : notice;
      try {
        await api.answerCallbackQuery(id, text === '' ? {} : { text });
      } catch (error) {
        if (/query is too old|query id is invalid/i.test(errorMessage(error, token))) {
          logger.debug({ err: errorMessage(error, token) }, 'callback query expired before it was answered');
          return;
        }
        throw toPlatformError(error, token);
      }
    },

    async setCommands(commands: readonly CommandInfo[]) {
      const menu = commands
        .filter((command) => COMMAND_NAME.test(command.name))
        .slice(0, 100)
        .map((command) => ({
          command: command.name,
          description: (command.description.trim() || command.name).slice(0, 256),
        }));
      try {
        await api.setMyCommands(menu);
      } catch (error) {
        throw toPlatformError(error, token);
      }
    },
  };
}
