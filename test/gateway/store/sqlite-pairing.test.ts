import { afterEach, describe, expect, it } from 'vitest';
import { manualClock, storeFixture } from './store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

const HOUR = 60 * 60 * 1000;

describe('sqlite gateway store: pairing', () => {
  it('adds, lists and consumes a code, approving its user atomically', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    const code = await store.addPairingCode({
      code: 'xkgh5n7p',
      platform: 'telegram',
      userId: '42',
      userName: 'ann',
      expiresAt: clock.now() + HOUR,
    });
    expect(code).toEqual({
      code: 'XKGH5N7P',
      platform: 'telegram',
      userId: '42',
      userName: 'ann',
      createdAt: clock.now(),
      expiresAt: clock.now() + HOUR,
    });
    expect(await store.listPairingCodes()).toEqual([code]);
    expect(await store.listPairingCodes('discord')).toEqual([]);
    expect(await store.isPairedUser('telegram', '42')).toBe(false);

    clock.advance(1000);
    expect(await store.consumePairingCode('discord', 'XKGH5N7P', 'owner')).toBeUndefined();
    const user = await store.consumePairingCode('telegram', ' xkgh5n7p ', 'owner');
    expect(user).toEqual({
      platform: 'telegram',
      userId: '42',
      userName: 'ann',
      approvedBy: 'owner',
      approvedAt: clock.now(),
    });
    expect(await store.isPairedUser('telegram', '42')).toBe(true);
    expect(await store.listPairingCodes()).toEqual([]);
    expect(await store.listPairedUsers()).toEqual([user]);
    expect(await store.consumePairingCode('telegram', 'XKGH5N7P', 'owner')).toBeUndefined();
  });

  it('lets only one of concurrent approvals of a code succeed', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    await store.addPairingCode({
      code: 'ABCD2345',
      platform: 'feishu',
      userId: 'ou_1',
      userName: undefined,
      expiresAt: clock.now() + HOUR,
    });
    const results = await Promise.all(
      ['a', 'b', 'c', 'd'].map((by) => store.consumePairingCode('feishu', 'ABCD2345', by)),
    );
    expect(results.filter((r) => r !== undefined)).toHaveLength(1);
  });

  it('ignores expired codes, prunes them, and drops a user’s other codes once approved', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    const base = { platform: 'telegram', userName: undefined } as const;
    await store.addPairingCode({ ...base, code: 'OLD22222', userId: '1', expiresAt: clock.now() + 10 });
    await store.addPairingCode({ ...base, code: 'AAAA2222', userId: '2', expiresAt: clock.now() + HOUR });
    await store.addPairingCode({ ...base, code: 'BBBB2222', userId: '2', expiresAt: clock.now() + HOUR });
    clock.advance(10);
    expect((await store.listPairingCodes()).map((c) => c.code)).toEqual(['AAAA2222', 'BBBB2222']);
    expect(await store.consumePairingCode('telegram', 'OLD22222', 'owner')).toBeUndefined();
    expect((await store.prune()).pairingCodes).toBe(1);
    await store.consumePairingCode('telegram', 'AAAA2222', 'owner');
    expect(await store.listPairingCodes()).toEqual([]);
  });

  it('revokes users and clears pending codes per platform', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    for (const [platform, code] of [
      ['telegram', 'TTTT2222'],
      ['discord', 'DDDD2222'],
    ] as const) {
      await store.addPairingCode({
        platform,
        code,
        userId: '7',
        userName: 'bo',
        expiresAt: clock.now() + HOUR,
      });
    }
    await store.consumePairingCode('telegram', 'TTTT2222', 'owner');
    expect(await store.revokePairedUser('telegram', '7')).toBe(true);
    expect(await store.revokePairedUser('telegram', '7')).toBe(false);
    expect(await store.isPairedUser('telegram', '7')).toBe(false);
    await store.addPairingCode({
      platform: 'telegram',
      code: 'TTTT3333',
      userId: '8',
      userName: undefined,
      expiresAt: clock.now() + HOUR,
    });
    expect(await store.clearPairingCodes('discord')).toBe(1);
    expect((await store.listPairingCodes()).map((c) => c.platform)).toEqual(['telegram']);
    expect(await store.clearPairingCodes()).toBe(1);
  });

  it('rejects malformed codes on add and answers undefined on consume', async () => {
    const store = fixture.fresh();
    await expect(
      store.addPairingCode({
        code: 'no spaces!',
        platform: 'telegram',
        userId: '1',
        userName: undefined,
        expiresAt: 1,
      }),
    ).rejects.toMatchObject({ code: 'store_failed' });
    expect(await store.consumePairingCode('telegram', "' OR 1=1 --", 'owner')).toBeUndefined();
  });
});
