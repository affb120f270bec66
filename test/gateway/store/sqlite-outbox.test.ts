import { afterEach, describe, expect, it } from 'vitest';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import { type OutboxInput, outboxId } from '../../../src/gateway/store/gateway-store.js';
import { manualClock, storeFixture } from './store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

const SESSION = 'agent:main:test:dm:c1';

function entry(turnId: string, overrides: Partial<OutboxInput> = {}): OutboxInput {
  return {
    id: outboxId('final', turnId),
    platform: 'test',
    sessionKey: SESSION,
    turnId,
    eventIds: [`test:e-${turnId}`],
    origin: { platform: 'test', chatType: 'dm', chatId: 'c1', userId: 'alice', replyToMessageId: 'm1' },
    kind: 'final',
    text: `answer of ${turnId}`,
    ...overrides,
  };
}

describe('chat outbox', () => {
  it('stores an entry once and reads it back with its origin', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    expect(await store.enqueueOutbox(entry('t1'))).toBe(true);
    expect(await store.enqueueOutbox(entry('t1', { text: 'a re-emitted answer' }))).toBe(false);
    expect(await store.getOutbox('final:t1')).toStrictEqual({
      id: 'final:t1',
      platform: 'test',
      sessionKey: SESSION,
      turnId: 't1',
      eventIds: ['test:e-t1'],
      origin: { platform: 'test', chatType: 'dm', chatId: 'c1', userId: 'alice', replyToMessageId: 'm1' },
      kind: 'final',
      text: 'answer of t1',
      prompt: undefined,
      createdAt: clock.now(),
      attempts: 0,
      lastAttemptAt: undefined,
      completed: undefined,
    });
    expect(await store.getOutbox('final:nope')).toBeUndefined();
  });

  it('keeps the prompt of a parked turn, by park id, and refuses a prompt where none belongs', async () => {
    const store = fixture.fresh();
    const prompt = { reason: 'approval', parkId: 'p1', payload: { id: 'req-1', command: 'rm -rf build' } };
    const parked = entry('t1', { id: outboxId('parked', 'p1'), kind: 'parked', text: '', prompt });
    expect(await store.enqueueOutbox(parked)).toBe(true);
    expect(
      await store.enqueueOutbox(
        entry('t1', {
          id: outboxId('parked', 'p2'),
          kind: 'parked',
          text: '',
          prompt: { ...prompt, parkId: 'p2' },
        }),
      ),
    ).toBe(true);
    expect(await store.getOutbox('parked:p1')).toMatchObject({ kind: 'parked', text: '', prompt });
    expect((await store.listOutbox({ platform: 'test' })).map((e) => e.id)).toEqual([
      'parked:p1',
      'parked:p2',
    ]);

    const refused = [
      store.enqueueOutbox(entry('t2', { id: outboxId('parked', 'p3'), kind: 'parked', text: '' })),
      store.enqueueOutbox(entry('t3', { prompt })),
      store.enqueueOutbox(
        entry('t4', {
          id: outboxId('parked', 'p4'),
          kind: 'parked',
          text: '',
          prompt: { ...prompt, reason: '' },
        }),
      ),
    ];
    for (const attempt of refused) {
      const error = await attempt.catch((e: unknown) => e);
      expect(isHermesError(error) && error.code).toBe('store_failed');
    }
  });

  it('keeps an answer and a failure notice of the same turn apart', async () => {
    const store = fixture.fresh();
    await store.enqueueOutbox(entry('t1'));
    await store.enqueueOutbox(
      entry('t1', { id: outboxId('failed', 't1'), kind: 'failed', text: 'The model failed.' }),
    );
    const listed = await store.listOutbox({ platform: 'test' });
    expect(listed.map((e) => [e.id, e.kind])).toEqual([
      ['final:t1', 'final'],
      ['failed:t1', 'failed'],
    ]);
  });

  it('lists pending entries of one platform, oldest first, by age and limit', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    await store.enqueueOutbox(entry('t1'));
    clock.advance(1000);
    await store.enqueueOutbox(entry('t2'));
    clock.advance(1000);
    await store.enqueueOutbox(entry('t3', { createdAt: clock.now() - 5000 }));
    await store.enqueueOutbox(
      entry('t4', {
        platform: 'other',
        origin: { platform: 'other', chatType: 'dm', chatId: 'x' },
      }),
    );
    const ids = async (options: { olderThan?: number; limit?: number } = {}) =>
      (await store.listOutbox({ platform: 'test', ...options })).map((e) => e.turnId);
    expect(await ids()).toEqual(['t3', 't1', 't2']);
    expect(await ids({ olderThan: clock.now() - 1500 })).toEqual(['t3', 't1']);
    expect(await ids({ limit: 1 })).toEqual(['t3']);
    expect((await store.listOutbox({ platform: 'other' })).map((e) => e.turnId)).toEqual(['t4']);
  });

  it('counts attempts and completes an entry once', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    await store.enqueueOutbox(entry('t1'));
    expect(await store.markOutboxAttempt('final:t1')).toBe(1);
    clock.advance(10);
    expect(await store.markOutboxAttempt('final:t1')).toBe(2);
    expect((await store.getOutbox('final:t1'))?.lastAttemptAt).toBe(clock.now());
    expect(await store.completeOutbox('final:t1')).toBe(true);
    expect(await store.completeOutbox('final:t1')).toBe(false);
    expect((await store.getOutbox('final:t1'))?.completed).toStrictEqual({
      outcome: 'delivered',
      at: clock.now(),
    });
    expect(await store.listOutbox({ platform: 'test' })).toEqual([]);
    // Done entries and unknown ids count no attempts.
    expect(await store.markOutboxAttempt('final:t1')).toBe(0);
    expect(await store.markOutboxAttempt('final:unknown')).toBe(0);
    expect(await store.completeOutbox('final:unknown')).toBe(false);
  });

  it('records an abandoned entry as such and never re-opens it', async () => {
    const store = fixture.fresh();
    await store.enqueueOutbox(entry('t1'));
    expect(await store.completeOutbox('final:t1', 'abandoned')).toBe(true);
    expect(await store.enqueueOutbox(entry('t1'))).toBe(false);
    expect((await store.getOutbox('final:t1'))?.completed?.outcome).toBe('abandoned');
    expect(await store.listOutbox({ platform: 'test' })).toEqual([]);
  });

  it('prunes done and stale entries after the retention, keeping recent pending ones', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    const day = 24 * 60 * 60 * 1000;
    await store.enqueueOutbox(entry('done-old'));
    await store.completeOutbox('final:done-old');
    await store.enqueueOutbox(entry('stale'));
    clock.advance(6 * day);
    await store.enqueueOutbox(entry('done-recent'));
    await store.completeOutbox('final:done-recent', 'abandoned');
    await store.enqueueOutbox(entry('pending'));
    clock.advance(1.5 * day);
    expect((await store.prune()).outbox).toBe(2);
    expect(await store.getOutbox('final:done-old')).toBeUndefined();
    expect(await store.getOutbox('final:stale')).toBeUndefined();
    expect(await store.getOutbox('final:done-recent')).toBeDefined();
    expect((await store.listOutbox({ platform: 'test' })).map((e) => e.turnId)).toEqual(['pending']);
  });

  it('refuses malformed entries with a typed error', async () => {
    const store = fixture.fresh();
    const refused = async (input: OutboxInput) => {
      const error = await store.enqueueOutbox(input).catch((e: unknown) => e);
      expect(isHermesError(error)).toBe(true);
    };
    await refused(entry('t1', { id: '' }));
    await refused(entry('t1', { kind: 'parked' as never }));
    await refused(entry('t1', { origin: { platform: 'elsewhere', chatType: 'dm', chatId: 'c1' } }));
    await refused(entry('t1', { sessionKey: 'not a key' }));
    expect(await store.listOutbox({ platform: 'test' })).toEqual([]);
  });
});
