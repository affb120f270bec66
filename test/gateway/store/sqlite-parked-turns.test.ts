import { afterEach, describe, expect, it } from 'vitest';
import { manualClock, storeFixture } from './store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

describe('sqlite gateway store: parked turns', () => {
  const KEY = 'agent:main:telegram:dm:42';

  it('saves, reads, replaces and lists parked turns', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    const state = { step: 3, messages: [{ role: 'user', content: 'rm -rf build' }], pending: { id: 'r1' } };
    await store.saveParkedTurn({
      turnId: 't1',
      sessionKey: KEY,
      state,
      reason: 'approval',
      expiresAt: clock.now() + 5000,
    });
    clock.advance(1);
    await store.saveParkedTurn({
      turnId: 't2',
      sessionKey: 'agent:main:discord:dm:9',
      state: 'x',
      reason: 'approval',
    });
    expect(await store.getParkedTurn('t1')).toEqual({
      turnId: 't1',
      sessionKey: KEY,
      state,
      reason: 'approval',
      createdAt: clock.now() - 1,
      expiresAt: clock.now() + 4999,
    });
    expect((await store.listParkedTurns()).map((t) => t.turnId)).toEqual(['t1', 't2']);
    expect((await store.listParkedTurns({ sessionKey: KEY })).map((t) => t.turnId)).toEqual(['t1']);
    expect(await store.listParkedTurns({ expiredBy: clock.now() })).toEqual([]);
    expect((await store.listParkedTurns({ expiredBy: clock.now() + 5000 })).map((t) => t.turnId)).toEqual([
      't1',
    ]);

    await store.saveParkedTurn({ turnId: 't1', sessionKey: KEY, state: { step: 4 }, reason: 'approval' });
    expect(await store.getParkedTurn('t1')).toMatchObject({ state: { step: 4 }, expiresAt: undefined });
  });

  it('hands a parked turn to exactly one taker', async () => {
    const store = fixture.fresh();
    await store.saveParkedTurn({ turnId: 't1', sessionKey: KEY, state: { n: 1 }, reason: 'approval' });
    const taken = await Promise.all([
      store.takeParkedTurn('t1'),
      store.takeParkedTurn('t1'),
      store.takeParkedTurn('t1'),
    ]);
    expect(taken.filter((t) => t !== undefined)).toHaveLength(1);
    expect(await store.getParkedTurn('t1')).toBeUndefined();
    await store.saveParkedTurn({ turnId: 't2', sessionKey: KEY, state: null, reason: 'approval' });
    expect(await store.deleteParkedTurn('t2')).toBe(true);
    expect(await store.deleteParkedTurn('t2')).toBe(false);
  });

  it('refuses state that is not JSON and an unsafe session key', async () => {
    const store = fixture.fresh();
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    await expect(
      store.saveParkedTurn({ turnId: 't', sessionKey: KEY, state: cyclic, reason: 'approval' }),
    ).rejects.toMatchObject({ code: 'store_failed' });
    await expect(
      store.saveParkedTurn({ turnId: 't', sessionKey: KEY, state: undefined, reason: 'approval' }),
    ).rejects.toMatchObject({ code: 'store_failed' });
    await expect(
      store.saveParkedTurn({
        turnId: 't',
        sessionKey: 'agent:main:x:dm:../..',
        state: 1,
        reason: 'approval',
      }),
    ).rejects.toMatchObject({ code: 'session_key_invalid' });
  });
});
