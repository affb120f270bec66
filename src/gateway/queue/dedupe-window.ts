/**
 * Remembers keys for a fixed window with a hard cap on entries, so a flood of distinct event
 * ids cannot grow memory without bound. Entries are kept in insertion order, which is also
 * expiry order (one window for all), so pruning only looks at the oldest end.
 */
export class DedupeWindow {
  readonly #expiries = new Map<string, number>();
  readonly #windowMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: { windowMs: number; maxEntries: number; now?: () => number }) {
    this.#windowMs = options.windowMs;
    this.#maxEntries = options.maxEntries;
    this.#now = options.now ?? Date.now;
  }

  /** True the first time `key` is seen within the window (and remembers it); false for a repeat. */
  firstSeen(key: string): boolean {
    const now = this.#now();
    this.#prune(now);
    const expiry = this.#expiries.get(key);
    if (expiry !== undefined && expiry > now) return false;
    this.#expiries.delete(key);
    this.#expiries.set(key, now + this.#windowMs);
    while (this.#expiries.size > this.#maxEntries) {
      const oldest = this.#expiries.keys().next();
      if (oldest.done) break;
      this.#expiries.delete(oldest.value);
    }
    return true;
  }

  get size(): number {
    return this.#expiries.size;
  }

  clear(): void {
    this.#expiries.clear();
  }

  #prune(now: number): void {
    for (const [key, expiry] of this.#expiries) {
      if (expiry > now) return;
      this.#expiries.delete(key);
    }
  }
}
