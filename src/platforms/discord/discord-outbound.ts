import { createHash, randomBytes } from 'node:crypto';
import {
  type APIEmbed,
  type APIMessage,
  type REST,
  type RESTPostAPIChannelMessageJSONBody,
  Routes,
} from 'discord.js';
import type { Logger } from 'pino';
import {
  type ActionPrompt,
  type ChatAddress,
  type InboundAction,
  measureLength,
  type OutboundText,
  type PlatformAdapter,
  PlatformError,
} from '../adapter.js';
import { isTokenRejected, toPlatformError } from './discord-errors.js';
import { RATE_LIMIT_OFFSET_MS } from './discord-rest.js';
import type { InteractionReplies } from './interaction-replies.js';
import { componentsOf } from './prompt-components.js';

/** Discord's limit of a message's text, characters. */
export const DISCORD_MESSAGE_CHARS = 2000;
/** Longest embed description: where a prompt too long for a message goes. */
const EMBED_DESCRIPTION_CHARS = 4096;
/** Discord keeps nonces to at most 25 characters. */
const NONCE_CHARS = 25;
/**
 * Mentions in what the bot writes never ping anyone (model output could hold `@everyone` or a
 * role); a reply still notifies the person replied to.
 */
const NO_PINGS = { parse: [] as [], replied_user: true };

export type DiscordOutbound = Pick<
  PlatformAdapter,
  'sendText' | 'editText' | 'sendTyping' | 'sendPrompt' | 'answerAction'
> & {
  /** Adds (or with `remove`, takes back) the bot's reaction on a message. */
  react(channelId: string, messageId: string, emoji: string, remove?: boolean): Promise<void>;
};

export interface DiscordOutboundOptions {
  readonly rest: REST;
  readonly token: string;
  readonly logger: Logger;
  readonly interactions: InteractionReplies;
  /** Called when Discord refused the token (401): the adapter stops for good. */
  readonly onTokenRejected: (detail: string) => void;
}

/** The channel a message goes to: the thread when there is one, else the chat. */
export function channelOf(to: ChatAddress): string {
  return to.threadId ?? to.chatId;
}

/**
 * A nonce that is the same for every send of one delivery part (derived from its idempotency
 * key) and random otherwise; with `enforce_nonce` a repeat within minutes returns the message
 * sent first instead of a second one, so discord.js' own retries after a timeout are safe too.
 */
export function nonceOf(key: string | undefined): string {
  if (key === undefined) return randomBytes(16).toString('hex').slice(0, NONCE_CHARS);
  return createHash('sha256').update(key).digest('hex').slice(0, NONCE_CHARS);
}

function checkSnowflake(id: string, what: string): string {
  if (!/^\d{1,20}$/.test(id))
    throw new PlatformError('not_found', `discord ${what} ${JSON.stringify(id.slice(0, 40))} is not an id`);
  return id;
}

/** Short text as the message; longer (a prompt showing a long command) as an embed. */
function textBody(text: string): { content: string; embeds: APIEmbed[] } {
  const length = measureLength(text, 'utf16');
  if (length <= DISCORD_MESSAGE_CHARS) return { content: text, embeds: [] };
  if (length <= EMBED_DESCRIPTION_CHARS) return { content: '', embeds: [{ description: text }] };
  throw new PlatformError(
    'too_long',
    `discord: ${length} characters do not fit one message (${EMBED_DESCRIPTION_CHARS} at most)`,
  );
}

/** Everything the bot sends, as REST calls; every failure is a token-free PlatformError. */
export function createDiscordOutbound(options: DiscordOutboundOptions): DiscordOutbound {
  const { rest, token, logger, interactions } = options;

  async function call<T>(run: () => Promise<T>, idempotent = false): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const mapped = toPlatformError(error, token, { idempotent, rateLimitOffsetMs: RATE_LIMIT_OFFSET_MS });
      if (isTokenRejected(error)) options.onTokenRejected(mapped.message);
      throw mapped;
    }
  }

  async function post(channelId: string, body: RESTPostAPIChannelMessageJSONBody, idempotencyKey?: string) {
    const nonce = nonceOf(idempotencyKey);
    const sent = await call(
      () =>
        rest.post(Routes.channelMessages(checkSnowflake(channelId, 'channel')), {
          body: { ...body, nonce, enforce_nonce: true, allowed_mentions: NO_PINGS },
        }) as Promise<APIMessage>,
      idempotencyKey !== undefined,
    );
    return { messageId: sent.id };
  }

  return {
    async sendText(to, message: OutboundText) {
      if (measureLength(message.text, 'utf16') > DISCORD_MESSAGE_CHARS) {
        throw new PlatformError(
          'too_long',
          `discord: a message holds at most ${DISCORD_MESSAGE_CHARS} characters`,
        );
      }
      const replyTo = message.replyToMessageId;
      // An answer to a slash command goes through its interaction while the token is fresh.
      if (replyTo !== undefined && interactions.has(replyTo)) {
        const sent = await call(() =>
          interactions.answer(replyTo, { content: message.text, allowed_mentions: { parse: [] } }),
        );
        if (sent !== undefined) return { messageId: sent.id };
      }
      const reference =
        replyTo !== undefined && /^\d{1,20}$/.test(replyTo)
          ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } }
          : {};
      return post(channelOf(to), { content: message.text, ...reference }, message.idempotencyKey);
    },

    async editText(to, messageId, message) {
      const body = { ...textBody(message.text), components: [], allowed_mentions: { parse: [] as [] } };
      await call(() =>
        rest.patch(
          Routes.channelMessage(
            checkSnowflake(channelOf(to), 'channel'),
            checkSnowflake(messageId, 'message'),
          ),
          {
            body,
          },
        ),
      );
    },

    async sendTyping(to) {
      await call(() => rest.post(Routes.channelTyping(checkSnowflake(channelOf(to), 'channel'))));
    },

    async sendPrompt(to, prompt: ActionPrompt) {
      const components = componentsOf(prompt);
      return post(channelOf(to), { ...textBody(prompt.text), components });
    },

    async answerAction(action: InboundAction, notice: string) {
      const id = action.platformOptions?.['interactionId'];
      if (typeof id !== 'string' || notice.trim() === '') return;
      try {
        await interactions.notice(id, notice.slice(0, DISCORD_MESSAGE_CHARS));
      } catch (error) {
        logger.debug(
          { err: toPlatformError(error, token).message },
          'discord: notice to the clicker not shown',
        );
      }
    },

    async react(channelId, messageId, emoji, remove = false) {
      const route = Routes.channelMessageOwnReaction(
        checkSnowflake(channelId, 'channel'),
        checkSnowflake(messageId, 'message'),
        encodeURIComponent(emoji),
      );
      await call(() => (remove ? rest.delete(route) : rest.put(route)));
    },
  };
}
