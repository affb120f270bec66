/**
 * One ordinal for everything the fake records (REST calls, gateway frames, interaction callbacks),
 * so tests compare the order of things without comparing times, and a `waitFor` that re-checks a
 * condition whenever the fake records something.
 */
export interface Stamp {
  /** Ordinal across the whole fake: a smaller `seq` happened first. */
  readonly seq: number;
  /** `Date.now()` when it happened. */
  readonly at: number;
}

export class EventClock {
  #seq = 0;
  readonly #listeners = new Set<() => void>();
  #closed = false;

  stamp(): Stamp {
    this.#seq += 1;
    return { seq: this.#seq, at: Date.now() };
  }

  /** Something changed: waiters look again. */
  changed(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  /**
   * Resolves with the first truthy value of `probe`, checked now and after every change the fake
   * records; rejects after `timeoutMs` (naming `what`) or when the fake closes.
   */
  waitFor<T>(probe: () => T | undefined | null | false, what: string, timeoutMs: number): Promise<T> {
    const first = probe();
    if (first !== undefined && first !== null && first !== false) return Promise.resolve(first);
    if (this.#closed) return Promise.reject(new Error(`fake discord closed while waiting for ${what}`));
    return new Promise<T>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.#listeners.delete(check);
      };
      const check = () => {
        if (this.#closed) {
          done();
          reject(new Error(`fake discord closed while waiting for ${what}`));
          return;
        }
        const value = probe();
        if (value !== undefined && value !== null && value !== false) {
          done();
          resolve(value);
        }
      };
      const timer = setTimeout(() => {
        this.#listeners.delete(check);
        reject(new Error(`fake discord: waited ${timeoutMs} ms for ${what}`));
      }, timeoutMs);
      this.#listeners.add(check);
    });
  }

  close(): void {
    this.#closed = true;
    this.changed();
  }
}
