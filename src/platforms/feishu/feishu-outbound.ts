import { createHash, randomUUID } from 'node:crypto';
import {
  type ActionPrompt,
  type ChatAddress,
  type OutboundText,
  PlatformError,
  type SentMessage,
} from '../adapter.js';
import { type Card, markdownCard, promptCard } from './feishu-cards.js';
import { larkError, larkRefusal } from './feishu-errors.js';
import type { LarkClient } from './lark-client.js';

/**
 * Everything the Feishu adapter sends: texts (plain as `text`, markdown as a card), prompts as
 * cards with buttons, and edits (PUT for texts, PATCH for cards). Every send carries a `uuid`:
 * the delivery's idempotency key hashed to Lark's 50 characters, so a retried send of one answer
 * part is the same message for Lark (it dedupes a uuid for an hour); without a key a fresh one.
 *
 * While a card callback is being answered, an edit of the clicked card is not sent: it is kept
 * (`answerSlots`) and goes back as the callback's answer, which is how Lark wants a clicked card
 * updated.
 */

export interface AnswerSlot {
  card: Card | undefined;
}

export interface FeishuOutbound {
  sendText(to: ChatAddress, message: OutboundText): Promise<SentMessage>;
  editText(to: ChatAddress, messageId: string, message: OutboundText): Promise<void>;
  sendPrompt(to: ChatAddress, prompt: ActionPrompt): Promise<SentMessage>;
  /** The slot an edit of `messageId` goes to while its click is answered; release it after. */
  holdAnswer(messageId: string): { readonly slot: AnswerSlot; release(): void };
}

/** Lark's uuid: at most 50 characters. */
export function sendUuid(idempotencyKey: string | undefined): string {
  if (idempotencyKey === undefined || idempotencyKey === '') return randomUUID();
  return createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 40);
}

const KIND_MEMORY = 4_096;

export function createFeishuOutbound(clientOf: () => Promise<LarkClient>): FeishuOutbound {
  /** What kind each message we sent is, so an edit uses the right call (oldest forgotten first). */
  const kinds = new Map<string, 'text' | 'card'>();
  const slots = new Map<string, { slot: AnswerSlot; holders: number }>();

  function remember(messageId: string, kind: 'text' | 'card'): void {
    kinds.delete(messageId);
    kinds.set(messageId, kind);
    while (kinds.size > KIND_MEMORY) {
      const oldest = kinds.keys().next();
      if (oldest.done === true) break;
      kinds.delete(oldest.value);
    }
  }

  async function send(
    to: ChatAddress,
    msgType: 'text' | 'interactive',
    content: string,
    uuid: string,
    replyTo: string | undefined,
  ): Promise<SentMessage> {
    const what = replyTo !== undefined ? 'im.message.reply' : 'im.message.create';
    let answer: unknown;
    try {
      const client = await clientOf();
      answer =
        replyTo !== undefined
          ? await client.im.v1.message.reply({
              path: { message_id: replyTo },
              data: { msg_type: msgType, content, uuid },
            })
          : await client.im.v1.message.create({
              params: { receive_id_type: 'chat_id' },
              data: { receive_id: to.chatId, msg_type: msgType, content, uuid },
            });
    } catch (error) {
      throw larkError(what, error);
    }
    const refusal = larkRefusal(what, answer);
    if (refusal !== undefined) throw refusal;
    const data = (answer as { data?: { message_id?: unknown } }).data;
    const messageId = typeof data?.message_id === 'string' ? data.message_id : '';
    if (messageId === '')
      throw new PlatformError('unavailable', `feishu ${what}: no message id in the answer`);
    remember(messageId, msgType === 'text' ? 'text' : 'card');
    return { messageId };
  }

  async function call(what: string, run: () => Promise<unknown>): Promise<void> {
    let answer: unknown;
    try {
      answer = await run();
    } catch (error) {
      throw larkError(what, error);
    }
    const refusal = larkRefusal(what, answer);
    if (refusal !== undefined) throw refusal;
  }

  const patchCard = (messageId: string, card: Card) =>
    call('im.message.patch', async () =>
      (await clientOf()).im.v1.message.patch({
        path: { message_id: messageId },
        data: { content: JSON.stringify(card) },
      }),
    );
  const updateText = (messageId: string, text: string) =>
    call('im.message.update', async () =>
      (await clientOf()).im.v1.message.update({
        path: { message_id: messageId },
        data: { msg_type: 'text', content: JSON.stringify({ text }) },
      }),
    );

  return {
    async sendText(to, message) {
      if (message.text.trim() === '')
        throw new PlatformError('bad_request', 'feishu: an empty text cannot be sent');
      const markdown = message.format === 'markdown';
      return send(
        to,
        markdown ? 'interactive' : 'text',
        JSON.stringify(markdown ? markdownCard(message.text) : { text: message.text }),
        sendUuid(message.idempotencyKey),
        message.replyToMessageId,
      );
    },

    async editText(_to, messageId, message) {
      const held = slots.get(messageId);
      if (held !== undefined) {
        held.slot.card = markdownCard(message.text);
        return;
      }
      const kind = kinds.get(messageId);
      if (kind === 'text') return updateText(messageId, message.text);
      if (kind === 'card') return patchCard(messageId, markdownCard(message.text));
      // Sent before a restart: try it as a card, then as a text.
      try {
        await patchCard(messageId, markdownCard(message.text));
      } catch (error) {
        if (!(error instanceof PlatformError) || error.code !== 'bad_request') throw error;
        await updateText(messageId, message.text);
      }
    },

    async sendPrompt(to, prompt) {
      const card = promptCard(prompt);
      return send(to, 'interactive', JSON.stringify(card), randomUUID(), undefined);
    },

    holdAnswer(messageId) {
      const existing = slots.get(messageId);
      const entry = existing ?? { slot: { card: undefined }, holders: 0 };
      entry.holders += 1;
      slots.set(messageId, entry);
      let released = false;
      return {
        slot: entry.slot,
        release() {
          if (released) return;
          released = true;
          entry.holders -= 1;
          if (entry.holders === 0 && slots.get(messageId) === entry) slots.delete(messageId);
        },
      };
    },
  };
}
