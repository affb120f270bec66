import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock, storeFixture } from './store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

const KEY = 'agent:main:telegram:dm:42';

describe('sqlite gateway store: delivery failures', () => {
  it('records failures per chat and hands them out once, oldest first', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    const first = await store.recordDeliveryFailure({
      platform: 'telegram',
      chatId: '42',
      sessionKey: KEY,
      turnId: 't1',
      error: 'forbidden: bot was blocked',
    });
    expect(first).toEqual({
      id: expect.any(Number),
      platform: 'telegram',
      chatId: '42',
      sessionKey: KEY,
      turnId: 't1',
      error: 'forbidden: bot was blocked',
      at: clock.now(),
    });
    clock.advance(1);
    await store.recordDeliveryFailure({
      platform: 'telegram',
      chatId: '42',
      sessionKey: KEY,
      turnId: 't2',
      error: 'x',
      at: 5,
    });
    await store.recordDeliveryFailure({
      platform: 'telegram',
      chatId: '43',
      sessionKey: 'agent:main:telegram:dm:43',
      turnId: 't3',
      error: 'x',
    });
    await store.recordDeliveryFailure({
      platform: 'discord',
      chatId: '42',
      sessionKey: KEY,
      turnId: 't4',
      error: 'x',
    });

    const taken = await store.takeDeliveryFailures('telegram', '42');
    expect(taken.map((failure) => [failure.turnId, failure.at])).toEqual([
      ['t1', clock.now() - 1],
      ['t2', 5],
    ]);
    expect(await store.takeDeliveryFailures('telegram', '42')).toEqual([]);
    expect((await store.takeDeliveryFailures('telegram', '43')).map((f) => f.turnId)).toEqual(['t3']);
    expect((await store.takeDeliveryFailures('discord', '42')).map((f) => f.turnId)).toEqual(['t4']);
  });

  it('gives the failures to exactly one of two processes taking them at once', async () => {
    const path = join(fixture.dir(), 'state.db');
    const a = fixture.open(path);
    const b = fixture.open(path);
    for (const turnId of ['t1', 't2', 't3']) {
      await a.recordDeliveryFailure({
        platform: 'telegram',
        chatId: '42',
        sessionKey: KEY,
        turnId,
        error: 'e',
      });
    }
    const [fromA, fromB] = await Promise.all([
      a.takeDeliveryFailures('telegram', '42'),
      b.takeDeliveryFailures('telegram', '42'),
    ]);
    expect(fromA.length + fromB.length).toBe(3);
    expect(Math.min(fromA.length, fromB.length)).toBe(0);
  });

  it('bounds the stored error text and validates the record', async () => {
    const store = fixture.fresh();
    const long = await store.recordDeliveryFailure({
      platform: 'telegram',
      chatId: '42',
      sessionKey: KEY,
      turnId: 't1',
      error: 'e'.repeat(5000),
    });
    expect(long.error.length).toBe(1000);
    await expect(
      store.recordDeliveryFailure({ platform: '', chatId: '42', sessionKey: KEY, turnId: 't', error: 'e' }),
    ).rejects.toMatchObject({ code: 'store_failed' });
    await expect(store.takeDeliveryFailures('telegram', '')).rejects.toMatchObject({ code: 'store_failed' });
  });

  it('prunes failures older than the retention', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    await store.recordDeliveryFailure({
      platform: 'telegram',
      chatId: '42',
      sessionKey: KEY,
      turnId: 't1',
      error: 'e',
    });
    clock.advance(8 * 24 * 60 * 60 * 1000);
    await store.recordDeliveryFailure({
      platform: 'telegram',
      chatId: '42',
      sessionKey: KEY,
      turnId: 't2',
      error: 'e',
    });
    expect((await store.prune()).deliveryFailures).toBe(1);
    expect((await store.takeDeliveryFailures('telegram', '42')).map((f) => f.turnId)).toEqual(['t2']);
  });
});
