import { describe, expect, it } from 'vitest';
import { createAuthLockout } from '../../../src/platforms/webhook/auth-lockout.js';
import { createRateLimiter } from '../../../src/platforms/webhook/rate-limiter.js';

function clock(start = 1_000_000) {
  let at = start;
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

describe('createAuthLockout', () => {
  it('locks an address out after max failures within a minute, for lockoutMs', () => {
    const time = clock();
    const lockout = createAuthLockout({ maxFailures: 3, lockoutMs: 120_000, now: time.now });
    expect(lockout.fail('1.2.3.4')).toBe(false);
    expect(lockout.fail('1.2.3.4')).toBe(false);
    expect(lockout.lockedFor('1.2.3.4')).toBe(0);
    expect(lockout.fail('1.2.3.4')).toBe(true);
    expect(lockout.lockedFor('1.2.3.4')).toBe(120_000);
    expect(lockout.lockedFor('5.6.7.8')).toBe(0);
    time.advance(119_999);
    expect(lockout.lockedFor('1.2.3.4')).toBe(1);
    time.advance(1);
    expect(lockout.lockedFor('1.2.3.4')).toBe(0);
  });

  it('forgets failures older than the one-minute window', () => {
    const time = clock();
    const lockout = createAuthLockout({ maxFailures: 3, lockoutMs: 60_000, now: time.now });
    lockout.fail('a');
    lockout.fail('a');
    time.advance(60_000);
    expect(lockout.fail('a')).toBe(false);
    expect(lockout.lockedFor('a')).toBe(0);
  });

  it('tracks a bounded number of addresses, dropping stale ones first', () => {
    const time = clock();
    const lockout = createAuthLockout({ maxFailures: 2, lockoutMs: 600_000, now: time.now, maxEntries: 100 });
    lockout.fail('locked');
    lockout.fail('locked');
    for (let i = 0; i < 50; i += 1) lockout.fail(`old-${i}`);
    time.advance(61_000);
    for (let i = 0; i < 1_000; i += 1) lockout.fail(`new-${i}`);
    expect(lockout.size()).toBeLessThanOrEqual(100);
  });
});

describe('createRateLimiter', () => {
  it('allows a burst up to the limit, then refills evenly over the minute', () => {
    const time = clock();
    const limiter = createRateLimiter(time.now);
    for (let i = 0; i < 3; i += 1) expect(limiter.take('r', 3)).toEqual({ ok: true });
    expect(limiter.take('r', 3)).toEqual({ ok: false, retryAfterMs: 20_000 });
    time.advance(10_000);
    expect(limiter.take('r', 3)).toEqual({ ok: false, retryAfterMs: 10_000 });
    time.advance(10_000);
    expect(limiter.take('r', 3)).toEqual({ ok: true });
    expect(limiter.take('other', 3)).toEqual({ ok: true });
  });
});
