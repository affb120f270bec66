import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createDelivery, type DeliveryOptions } from '../../../src/gateway/delivery/create-delivery.js';
import type { PlatformAdapter } from '../../../src/platforms/adapter.js';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import { manualClock, storeFixture } from '../store/store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

const KEY = 'agent:main:test:dm:c1';
const TO = { chatId: 'c1' };
/** Four paragraphs of 40 characters: four parts at a limit of 50. */
const LONG = ['alpha', 'bravo', 'charlie', 'delta']
  .map((word) => `${word} ${'x'.repeat(39 - word.length)}`)
  .join('\n\n');

/** A pino logger whose JSON lines the test can read. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

function setup(options: Partial<DeliveryOptions> = {}) {
  const clock = manualClock();
  const store = fixture.fresh(clock);
  const adapter = createTestAdapter({ limits: { maxMessageLength: 50 } });
  const sleeps: number[] = [];
  const log = capturingLogger();
  const delivery = createDelivery({
    store,
    logger: log.logger,
    now: clock.now,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.advance(ms);
    },
    random: () => 0.5,
    ...options,
  });
  const deliver = (receiptKey: string, text = LONG, to = TO, via: PlatformAdapter = adapter) =>
    delivery.deliverText({ adapter: via, to, sessionKey: KEY, receiptKey, text });
  return { clock, store, adapter, sleeps, delivery, deliver, log };
}

describe('delivery', () => {
  it('splits to the adapter limit and records a receipt per part', async () => {
    const { adapter, store, deliver, delivery } = setup();
    expect(await deliver('turn-1')).toMatchObject({ status: 'delivered', parts: 4, sent: 4, skipped: 0 });
    expect(adapter.texts().map((text) => text.split(' ')[0])).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
    for (const text of adapter.texts()) expect(text.length).toBeLessThanOrEqual(50);
    expect(await store.getDelivery('turn-1:2')).toMatchObject({
      platform: 'test',
      chatId: 'c1',
      messageIds: [adapter.sent[2]?.messageId],
    });

    await delivery.deliverText({
      adapter,
      to: TO,
      sessionKey: KEY,
      receiptKey: 'turn-2',
      text: 'short answer',
      replyToMessageId: 'in-5',
      format: 'markdown',
    });
    expect(adapter.sent.at(-1)).toMatchObject({
      text: 'short answer',
      replyToMessageId: 'in-5',
      format: 'markdown',
    });
  });

  it('gives every attempt at one part the same idempotency key (its receipt key), and each part its own', async () => {
    const { adapter, deliver } = setup();
    // Part 1 reaches the platform but the answer is lost; its retry must be recognisable as the same send.
    adapter.failNext({ code: 'unavailable', maybeDelivered: true, after: 1 });
    expect(await deliver('turn-7')).toMatchObject({ status: 'delivered', parts: 4 });
    expect(adapter.sent.map((record) => record.idempotencyKey)).toEqual([
      'turn-7:0',
      'turn-7:1',
      'turn-7:1',
      'turn-7:2',
      'turn-7:3',
    ]);
  });

  it('sends nothing for an empty answer and says so', async () => {
    const { adapter, deliver } = setup();
    expect(await deliver('turn-1', '  \n ')).toEqual({ status: 'empty' });
    expect(adapter.sent).toEqual([]);
  });

  it('never re-sends a part already delivered when the same answer is delivered again', async () => {
    const { adapter, deliver } = setup();
    const first = await deliver('turn-1');
    const again = await deliver('turn-1');
    expect(again).toEqual({
      status: 'delivered',
      parts: 4,
      sent: 0,
      skipped: 4,
      messageIds: first.status === 'delivered' ? first.messageIds : [],
    });
    expect(adapter.sent).toHaveLength(4);
  });

  it('continues a half-delivered answer from the first missing part', async () => {
    const { adapter, deliver, sleeps } = setup();
    adapter.failNext({ code: 'forbidden', after: 2 }); // parts 0 and 1 go through, part 2 is refused
    expect(await deliver('turn-1')).toMatchObject({ status: 'failed', failedPart: 2, sent: 2 });
    expect(sleeps).toEqual([]); // not retryable: no retries
    expect(await deliver('turn-1')).toMatchObject({ status: 'delivered', sent: 2, skipped: 2 });
    expect(adapter.texts().map((text) => text.split(' ')[0])).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
  });

  it('retries once a send that failed after the platform accepted it, then never again', async () => {
    const { adapter, store, deliver } = setup();
    // Part 1 reaches the chat but the answer is lost (a timeout after sending).
    adapter.failNext({ code: 'unavailable', maybeDelivered: true, after: 1 });
    expect(await deliver('turn-1')).toMatchObject({ status: 'delivered', parts: 4, sent: 4 });
    // The trade-off: the ambiguous part may show twice (never zero times); the others exactly once.
    const heads = adapter.texts().map((text) => text.split(' ')[0]);
    expect(heads).toEqual(['alpha', 'bravo', 'bravo', 'charlie', 'delta']);
    expect((await store.getDelivery('turn-1:1'))?.messageIds).toEqual([adapter.sent[2]?.messageId]);
    // A re-run (the turn re-emitted after a crash) sends nothing at all.
    expect(await deliver('turn-1')).toMatchObject({ sent: 0, skipped: 4 });
    expect(adapter.sent).toHaveLength(5);
  });

  it('gives up on a part after a second ambiguous failure and records it', async () => {
    const { adapter, store, deliver } = setup();
    adapter.failNext({ code: 'unavailable', maybeDelivered: true, times: 2 });
    expect(await deliver('turn-1', 'short')).toMatchObject({ status: 'failed', failedPart: 0 });
    expect(adapter.texts()).toEqual(['short', 'short']);
    expect(await store.getDelivery('turn-1:0')).toBeUndefined();
    expect(await store.takeDeliveryFailures('test', 'c1')).toHaveLength(1);
  });

  it('retries an error that is not a PlatformError once', async () => {
    const { adapter, deliver } = setup();
    let calls = 0;
    const flaky: PlatformAdapter = {
      ...adapter,
      sendText: async (to, message) => {
        calls += 1;
        if (calls === 1) throw new TypeError('socket hang up');
        return adapter.sendText(to, message);
      },
    };
    expect(await deliver('turn-1', 'short', TO, flaky)).toMatchObject({ status: 'delivered', sent: 1 });
    expect(calls).toBe(2);
  });

  it('obeys retry_after exactly on a 429', async () => {
    const { adapter, deliver, sleeps } = setup();
    adapter.failNext({ code: 'rate_limited', retryAfterMs: 3000, after: 1 });
    expect(await deliver('turn-1')).toMatchObject({ status: 'delivered', sent: 4 });
    expect(sleeps).toEqual([3000]);
    expect(adapter.sent).toHaveLength(4);
  });

  it('backs off exponentially with jitter, and gives up after maxAttempts', async () => {
    const { adapter, deliver, sleeps, store } = setup({ maxAttempts: 4, baseDelayMs: 1000 });
    adapter.failNext({ code: 'unavailable', times: 4 });
    expect(await deliver('turn-1', 'short')).toMatchObject({ status: 'failed', failedPart: 0, sent: 0 });
    // random() = 0.5: half the delay plus a quarter of it.
    expect(sleeps).toEqual([750, 1500, 3000]);
    expect(await store.takeDeliveryFailures('test', 'c1')).toHaveLength(1);
  });

  it('does not wait for a retry_after longer than the limit', async () => {
    const { adapter, deliver, sleeps } = setup({ maxRetryAfterMs: 10_000 });
    adapter.failNext({ code: 'rate_limited', retryAfterMs: 60_000 });
    expect(await deliver('turn-1', 'short')).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/60000/),
    });
    expect(sleeps).toEqual([]);
  });

  it('records a permanent failure, logs it with the session key, and tells the chat on the next contact', async () => {
    const { adapter, store, deliver, log } = setup();
    adapter.failNext({ code: 'forbidden' });
    expect(await deliver('turn-1')).toMatchObject({ status: 'failed', failedPart: 0, sent: 0 });
    expect(log.lines).toContainEqual(
      expect.objectContaining({ level: 50, sessionKey: KEY, receiptKey: 'turn-1', code: 'forbidden' }),
    );

    // Another chat is not told.
    await deliver('turn-x', 'hello', { chatId: 'c2' });
    expect(adapter.texts('c2')).toEqual(['hello']);

    // The next answer in the same chat comes after a short notice.
    expect(await deliver('turn-2', 'second answer')).toMatchObject({ status: 'delivered', sent: 1 });
    const shown = adapter.texts('c1');
    expect(shown.at(-1)).toBe('second answer');
    // The notice comes first (split like any text at this tiny limit of 50).
    expect(shown.slice(0, -1).join(' ')).toMatch(/^⚠️ An earlier answer could not be delivered/);
    expect(await store.takeDeliveryFailures('test', 'c1')).toEqual([]);

    // Told once only.
    await deliver('turn-3', 'third answer');
    expect(adapter.texts('c1').slice(shown.length)).toEqual(['third answer']);
  });

  it('does not announce the failure of the very answer now being delivered', async () => {
    const { adapter, deliver } = setup();
    adapter.failNext({ code: 'forbidden' });
    await deliver('turn-1', 'answer');
    expect(await deliver('turn-1', 'answer')).toMatchObject({ status: 'delivered', sent: 1 });
    expect(adapter.texts()).toEqual(['answer']);
  });

  it('keeps the failure for later when the notice itself cannot be sent', async () => {
    const { adapter, store, deliver } = setup();
    adapter.failNext({ code: 'forbidden' });
    await deliver('turn-1', 'first');
    adapter.failNext({ code: 'forbidden', times: 2 }); // the notice, then the answer
    expect(await deliver('turn-2', 'second')).toMatchObject({ status: 'failed' });
    const pending = await store.takeDeliveryFailures('test', 'c1');
    expect(pending.map((failure) => failure.turnId).sort()).toEqual(['turn-1', 'turn-2']);
  });

  it('sends each part once when the same answer is delivered twice at the same time', async () => {
    const { adapter, deliver } = setup();
    const [a, b] = await Promise.all([deliver('turn-1'), deliver('turn-1')]);
    expect([a.status, b.status]).toEqual(['delivered', 'delivered']);
    expect(adapter.sent).toHaveLength(4);
  });

  it('adds part indicators when configured', async () => {
    const { adapter, deliver } = setup({ partIndicators: true });
    await deliver('turn-1');
    const texts = adapter.texts();
    expect(texts.at(-1)).toMatch(/\(\d\/\d\)$/);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(50);
  });
});
