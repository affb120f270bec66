import { describe, expect, it } from 'vitest';
import { type InboundEvent, PlatformError, type PlatformLimits } from '../../src/platforms/adapter.js';
import { createTestAdapter } from '../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../src/platforms/test-adapter/test-adapter-types.js';
import { type AdapterHarness, type PlatformAck, runAdapterConformance } from './adapter-conformance.js';

/** The platform side of the in-memory adapter is the adapter itself. */
function testHarness(limits: Partial<PlatformLimits> = {}): AdapterHarness {
  const adapter = createTestAdapter({ limits });
  const chat = { chatId: 'c1', chatType: 'dm' as const };
  const userId = 'u1';
  let last: InboundEvent | undefined;
  const ack = async (event: InboundEvent): Promise<PlatformAck> => {
    last = event;
    const result = await adapter.inject(event);
    return result.status === 'not_accepted' ? 'not_acknowledged' : 'acknowledged';
  };
  return {
    adapter,
    chat,
    userId,
    missingMessageId: 'm-never',
    emitText: (text) => ack(adapter.text({ chatId: chat.chatId, userId, text })),
    emitAction: (messageId, data) => ack(adapter.action({ chatId: chat.chatId, userId, messageId, data })),
    redeliverLast: async () => {
      if (last === undefined) throw new Error('nothing emitted yet');
      return ack(last);
    },
    shownMessage: async (messageId) => {
      const shown = adapter.shown(messageId);
      return shown === undefined
        ? undefined
        : { text: shown.text, choices: shown.choices.map((c) => ({ label: c.label, data: c.data })) };
    },
    typingShown: async () => adapter.typing.length,
    actionNotices: async () => adapter.actionAnswers.map((answer) => answer.notice),
    commandMenu: async () => adapter.commandMenus.at(-1),
    rateLimitNext: async (op, retryAfterMs) =>
      adapter.failNext({ on: op, code: 'rate_limited', retryAfterMs }),
    close: async () => {},
  };
}

runAdapterConformance('test adapter', async () => testHarness());
runAdapterConformance('test adapter without buttons, edits or typing', async () =>
  testHarness({ supportsButtons: false, supportsEdit: false, supportsTyping: false }),
);
runAdapterConformance('test adapter counting code points, 50 per message', async () =>
  testHarness({ lengthUnit: 'codepoints', maxMessageLength: 50, maxActionDataBytes: 32 }),
);

async function startedAdapter(limits: Partial<PlatformLimits> = {}): Promise<TestAdapter> {
  const adapter = createTestAdapter({ limits, now: () => 1000 });
  await adapter.start(async () => ({ status: 'accepted' }));
  return adapter;
}

describe('test adapter', () => {
  it('records sends, edits, prompts and the current view of each message', async () => {
    const adapter = await startedAdapter();
    const to = { chatId: 'c1' };
    const a = await adapter.sendText(to, { text: 'one', replyToMessageId: 'in-9' });
    await adapter.sendText({ chatId: 'c2' }, { text: 'elsewhere' });
    const p = await adapter.sendPrompt(to, {
      text: 'Allow?',
      choices: [{ data: 'y', label: 'Yes' }],
      fallbackText: 'Allow? /approve',
    });
    await adapter.editText(to, a.messageId, { text: 'one (edited)' });
    expect(adapter.sent.map((s) => [s.messageId, s.text, s.replyToMessageId])).toEqual([
      ['m1', 'one', 'in-9'],
      ['m2', 'elsewhere', undefined],
    ]);
    expect(adapter.prompts).toMatchObject([{ messageId: p.messageId, rendered: 'buttons', text: 'Allow?' }]);
    expect(adapter.edits).toEqual([{ messageId: 'm1', to, text: 'one (edited)', format: undefined }]);
    expect(adapter.texts('c1')).toEqual(['one (edited)', 'Allow?']);
    expect(adapter.shown(a.messageId)?.edits).toBe(1);
    expect(adapter.messages().map((m) => m.kind)).toEqual(['text', 'text', 'prompt']);
  });

  it('refuses what a strict platform refuses', async () => {
    const adapter = await startedAdapter({ maxMessageLength: 10 });
    await expect(adapter.sendText({ chatId: 'c1' }, { text: 'x'.repeat(11) })).rejects.toMatchObject({
      code: 'too_long',
    });
    await expect(adapter.sendText({ chatId: 'c1' }, { text: '   ' })).rejects.toMatchObject({
      code: 'bad_request',
    });
    await expect(adapter.sendText({ chatId: '' }, { text: 'x' })).rejects.toMatchObject({
      code: 'bad_request',
    });
    const { messageId } = await adapter.sendText({ chatId: 'c1' }, { text: 'x' });
    await expect(adapter.editText({ chatId: 'c2' }, messageId, { text: 'y' })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(adapter.sent).toHaveLength(1);
  });

  it('fails the next calls as programmed, in order, per operation', async () => {
    const adapter = await startedAdapter();
    const to = { chatId: 'c1' };
    adapter.failNext({ code: 'unavailable', times: 2 });
    adapter.failNext({ on: 'edit', code: 'rate_limited', retryAfterMs: 1500 });
    const first = await adapter.sendText(to, { text: 'a' }).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(PlatformError);
    expect(first).toMatchObject({ code: 'unavailable', maybeDelivered: false, retryable: true });
    await expect(adapter.sendText(to, { text: 'a' })).rejects.toMatchObject({ code: 'unavailable' });
    const { messageId } = await adapter.sendText(to, { text: 'a' });
    await expect(adapter.editText(to, messageId, { text: 'b' })).rejects.toMatchObject({
      code: 'rate_limited',
      retryAfterMs: 1500,
    });
    await adapter.editText(to, messageId, { text: 'b' });
    expect(adapter.texts()).toEqual(['b']);

    adapter.failNext({ on: ['send', 'prompt'], code: 'forbidden', times: 5 });
    adapter.clearFailures();
    await adapter.sendText(to, { text: 'c' });
  });

  it('stores a message that failed after the platform accepted it (maybeDelivered)', async () => {
    const adapter = await startedAdapter();
    adapter.failNext({ code: 'unavailable', maybeDelivered: true });
    await expect(adapter.sendText({ chatId: 'c1' }, { text: 'lost ack' })).rejects.toMatchObject({
      maybeDelivered: true,
    });
    expect(adapter.texts()).toEqual(['lost ack']);
  });

  it('builds events with unique ids and parses commands from text', async () => {
    const adapter = await startedAdapter();
    const message = adapter.message({
      chatId: 'g1',
      userId: 'u1',
      text: 'hi',
      chatType: 'group',
      addressed: false,
    });
    const command = adapter.text({ chatId: 'c1', userId: 'u1', text: '/Approve@hermes_bot session all' });
    const plain = adapter.text({ chatId: 'c1', userId: 'u1', text: 'not /a command' });
    expect(message).toMatchObject({
      kind: 'message',
      platform: 'test',
      chat: { chatId: 'g1', chatType: 'group' },
      addressed: false,
      receivedAt: 1000,
    });
    expect(command).toMatchObject({ kind: 'command', name: 'approve', args: 'session all', addressed: true });
    expect(plain.kind).toBe('message');
    const ids = [message, command, plain].map((event) => event.eventId);
    expect(new Set(ids).size).toBe(3);
    const again = adapter.message({ chatId: 'c1', userId: 'u1', text: 'hi', eventId: message.eventId });
    expect(again.eventId).toBe(message.eventId);
  });

  it('presses a button of a sent prompt and records the sink result and toast', async () => {
    const adapter = createTestAdapter();
    const seen: InboundEvent[] = [];
    await adapter.start(async (event) => {
      seen.push(event);
      return event.kind === 'action'
        ? { status: 'answered', notice: 'Already decided.' }
        : { status: 'accepted' };
    });
    const { messageId } = await adapter.sendPrompt(
      { chatId: 'c1', threadId: 't7' },
      {
        text: 'Allow?',
        choices: [
          { data: 'ea:once:1', label: 'Allow once' },
          { data: 'ea:deny:1', label: 'Deny' },
        ],
        fallbackText: 'Allow? /approve',
      },
    );
    expect(await adapter.press({ messageId, label: 'Deny', userId: 'u2' })).toEqual({
      status: 'answered',
      notice: 'Already decided.',
    });
    expect(seen[0]).toMatchObject({
      kind: 'action',
      data: 'ea:deny:1',
      messageId,
      chat: { chatId: 'c1', threadId: 't7' },
      sender: { userId: 'u2' },
    });
    expect(adapter.actionAnswers).toMatchObject([{ notice: 'Already decided.' }]);
    expect(adapter.inbound).toHaveLength(1);
    expect(() => adapter.click({ messageId, label: 'Maybe', userId: 'u2' })).toThrow(/no button Maybe/);
  });

  it('reports a throwing sink as not accepted, and refuses injection when stopped', async () => {
    const adapter = createTestAdapter();
    const event = adapter.message({ chatId: 'c1', userId: 'u1', text: 'hi' });
    await expect(adapter.inject(event)).rejects.toThrow(/not started/);
    await adapter.start(async () => {
      throw new Error('boom');
    });
    expect(adapter.started).toBe(true);
    const result = await adapter.inject(event);
    expect(result.status).toBe('not_accepted');
    await adapter.stop();
    expect(adapter.started).toBe(false);
    expect((await adapter.health()).ok).toBe(false);
  });

  it('sends the fallback text where there are no buttons, and no typing where there is none', async () => {
    const adapter = await startedAdapter({ supportsButtons: false, supportsTyping: false });
    const { messageId } = await adapter.sendPrompt(
      { chatId: 'c1' },
      {
        text: 'Allow?',
        choices: [{ data: 'x'.repeat(500), label: 'Yes' }],
        fallbackText: 'Allow? Reply /approve',
      },
    );
    expect(adapter.shown(messageId)).toMatchObject({ text: 'Allow? Reply /approve', choices: [] });
    expect(adapter.prompts[0]?.rendered).toBe('text');
    expect(() => adapter.click({ messageId, label: 'Yes', userId: 'u1' })).toThrow();
    await adapter.sendTyping({ chatId: 'c1' });
    expect(adapter.typing).toEqual([]);
  });
});
