/**
 * Runs tasks one after another per key (a file path, a session key) while different keys run
 * freely in parallel. Each key holds only the tail of its chain, and the entry is dropped once
 * the chain drains, so idle keys cost nothing. A failing task fails its own caller only; the
 * next task of the same key still runs.
 */
export class KeyedSerializer {
  readonly #tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Keys with a task queued or running (for tests and metrics). */
  get activeKeys(): number {
    return this.#tails.size;
  }
}
