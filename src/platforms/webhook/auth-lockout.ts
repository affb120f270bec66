/**
 * Locks out an address after repeated failed authentications, so a secret cannot be guessed by
 * brute force. Failures are counted in fixed one-minute windows; reaching `maxFailures` locks
 * the address for `lockoutMs`. Memory is bounded: at most `maxEntries` addresses are tracked
 * (stale ones are dropped first, then the oldest).
 */
export interface AuthLockout {
  /** Milliseconds until the address may try again, or 0 when it is not locked out. */
  lockedFor(address: string): number;
  /** Records a failure; returns true when this failure locked the address out. */
  fail(address: string): boolean;
  /** Tracked addresses, for tests. */
  size(): number;
}

interface Entry {
  windowStart: number;
  failures: number;
  lockedUntil: number;
}

const WINDOW_MS = 60_000;

export function createAuthLockout(options: {
  readonly maxFailures: number;
  readonly lockoutMs: number;
  readonly now: () => number;
  readonly maxEntries?: number;
}): AuthLockout {
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, Entry>();

  const stale = (entry: Entry, at: number) => entry.lockedUntil <= at && at - entry.windowStart >= WINDOW_MS;

  function makeRoom(at: number): void {
    if (entries.size < maxEntries) return;
    for (const [address, entry] of entries) {
      if (stale(entry, at)) entries.delete(address);
    }
    while (entries.size >= maxEntries) {
      const oldest = entries.keys().next();
      if (oldest.done === true) break;
      entries.delete(oldest.value);
    }
  }

  return {
    lockedFor(address) {
      const entry = entries.get(address);
      if (entry === undefined) return 0;
      const at = options.now();
      return entry.lockedUntil > at ? entry.lockedUntil - at : 0;
    },
    fail(address) {
      const at = options.now();
      let entry = entries.get(address);
      if (entry === undefined) {
        makeRoom(at);
        entry = { windowStart: at, failures: 0, lockedUntil: 0 };
      } else {
        entries.delete(address); // re-inserted below: the Map keeps recently failing addresses last
      }
      if (at - entry.windowStart >= WINDOW_MS) {
        entry.windowStart = at;
        entry.failures = 0;
      }
      entry.failures += 1;
      let locked = false;
      if (entry.failures >= options.maxFailures && entry.lockedUntil <= at) {
        entry.lockedUntil = at + options.lockoutMs;
        entry.failures = 0;
        locked = true;
      }
      entries.set(address, entry);
      return locked;
    },
    size: () => entries.size,
  };
}
