import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDelivery } from '../../../src/gateway/delivery/create-delivery.js';
import { createSqliteGatewayStore } from '../../../src/gateway/store/sqlite-gateway-store.js';
import { PlatformError } from '../../../src/platforms/adapter.js';
import { silentLogger } from '../../helpers/test-config.js';
import { ANN, recordingSink, setupTelegram, type TelegramSetup } from './telegram-kit.js';

const DM = { chatId: String(ANN.id) };
const ENTITY_REFUSAL = {
  code: 400,
  description: 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 0',
  when: (payload: Record<string, unknown>) => payload['parse_mode'] === 'HTML',
};

describe('telegram outbound', () => {
  let setup: TelegramSetup | undefined;
  afterEach(async () => {
    await setup?.close();
    setup = undefined;
  });

  async function started() {
    setup = await setupTelegram('polling');
    await setup.adapter.start(recordingSink().sink);
    return setup;
  }

  function deliveryFor(home: string, sleeps: number[]) {
    const store = createSqliteGatewayStore({ path: join(home, 'state.db'), logger: silentLogger });
    const delivery = createDelivery({
      store,
      logger: silentLogger,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    return { store, delivery };
  }

  it('sends markdown as HTML, and the same text plain when Telegram refuses the formatting', async () => {
    const { adapter, fake } = await started();
    const ok = await adapter.sendText(DM, { text: 'a **b** <c>', format: 'markdown' });
    expect(fake.message(Number(ok.messageId))).toMatchObject({
      raw: 'a <b>b</b> &lt;c&gt;',
      text: 'a b <c>',
    });
    fake.failNext('sendMessage', ENTITY_REFUSAL);
    const plain = await adapter.sendText(DM, { text: 'x **y**', format: 'markdown' });
    expect(fake.message(Number(plain.messageId))).toMatchObject({ text: 'x **y**', parseMode: undefined });
    // Badly nested emphasis is refused by Telegram's own parser: also sent plain.
    const nested = await adapter.sendText(DM, { text: '**a *b** c*', format: 'markdown' });
    expect(fake.message(Number(nested.messageId))?.text).toBe('**a *b** c*');
    expect(fake.callsOf('sendMessage')).toHaveLength(5);
  });

  it('replies, writes into forum topics, edits away the buttons and publishes valid commands', async () => {
    const { adapter, fake } = await started();
    const topic = { chatId: '-100999', threadId: '7' };
    const sent = await adapter.sendText(topic, { text: 'in topic', replyToMessageId: '33' });
    expect(fake.callsOf('sendMessage')[0]?.payload).toMatchObject({
      message_thread_id: 7,
      reply_parameters: { message_id: 33, allow_sending_without_reply: true },
    });
    const prompt = await adapter.sendPrompt(topic, {
      text: 'Pick',
      choices: ['a', 'b', 'c'].map((x) => ({ data: `d:${x}`, label: x })),
      fallbackText: 'Pick with /a',
    });
    expect(fake.message(Number(prompt.messageId))?.buttons.map((row) => row.length)).toEqual([2, 1]);
    await adapter.editText(topic, prompt.messageId, { text: 'Picked a' });
    await adapter.editText(topic, prompt.messageId, { text: 'Picked a' }); // "not modified" is fine
    expect(fake.message(Number(prompt.messageId))).toMatchObject({ text: 'Picked a', buttons: [] });
    await adapter.sendTyping(topic);
    expect(fake.callsOf('sendChatAction')[0]?.payload).toMatchObject({
      action: 'typing',
      message_thread_id: 7,
    });
    await expect(adapter.editText(topic, 'not-a-number', { text: 'x' })).rejects.toMatchObject({
      code: 'not_found',
    });
    await adapter.setCommands([
      { name: 'status', description: 'What is running' },
      { name: 'Bad-Name', description: 'skipped' },
      { name: 'new', description: '' },
    ]);
    expect(fake.commands).toEqual([
      { command: 'status', description: 'What is running' },
      { command: 'new', description: 'new' },
    ]);
    expect(sent.messageId).not.toBe(prompt.messageId);
  });

  it('maps a blocked chat to forbidden, and delivery does not retry it', async () => {
    const { adapter, fake, home } = await started();
    fake.block(ANN.id);
    const error = await adapter.sendText(DM, { text: 'hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'forbidden', retryable: false });
    const { delivery, store } = deliveryFor(home, []);
    const result = await delivery.deliverText({
      adapter,
      to: DM,
      sessionKey: 's',
      receiptKey: 'r1',
      text: 'hi',
    });
    expect(result.status).toBe('failed');
    expect(fake.callsOf('sendMessage')).toHaveLength(2);
    await store.close();
  });

  it('waits exactly Telegram’s retry_after once, without a second retry layer', async () => {
    const { adapter, fake, home } = await started();
    fake.failNext('sendMessage', {
      code: 429,
      description: 'Too Many Requests: retry after 2',
      retryAfter: 2,
    });
    const sleeps: number[] = [];
    const { delivery, store } = deliveryFor(home, sleeps);
    const result = await delivery.deliverText({
      adapter,
      to: DM,
      sessionKey: 's',
      receiptKey: 'r2',
      text: 'hello',
    });
    expect(result).toMatchObject({ status: 'delivered', parts: 1 });
    expect(sleeps).toEqual([2000]);
    expect(fake.callsOf('sendMessage')).toHaveLength(2);
    await store.close();
  });

  it('delivers a 10,000-character answer with emoji at the split points in parts of at most 4096 UTF-16 units', async () => {
    const { adapter, fake, home } = await started();
    // No spaces or line breaks: every cut is a hard one, and an emoji sits across each 4096 boundary.
    const block = (n: number) => 'x'.repeat(n);
    const text = `${block(4095)}😀${block(4091)}👩‍👩‍👧${block(1810)}`;
    expect(text.length).toBeGreaterThan(10_000);
    const { delivery, store } = deliveryFor(home, []);
    const result = await delivery.deliverText({
      adapter,
      to: DM,
      sessionKey: 's',
      receiptKey: 'r3',
      text,
      format: 'markdown',
    });
    expect(result).toMatchObject({ status: 'delivered', parts: 3 });
    const parts = fake.messages(ANN.id).map((m) => m.text);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(4096);
      expect(part).not.toMatch(/[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/);
    }
    expect(parts.join('')).toBe(text);
    expect(parts.some((part) => part.startsWith('👩‍👩‍👧'))).toBe(true); // the ZWJ sequence stays whole
    await store.close();
  });
});
