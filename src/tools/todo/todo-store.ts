import { KeyedSerializer } from '../memory/keyed-serializer.js';
import { type TodoItem, todoItemSchema } from './todo-item.js';

/**
 * Optional durable storage for todo lists, so a list survives a restart, a worker hand-over and
 * eviction from the in-memory cache. The gateway store can provide it later; without it lists
 * live only in this process.
 *
 * - `load` returns the saved list of a session, or `undefined` when there is none. What it
 *   returns is checked item by item; malformed items are dropped.
 * - `save` stores the whole list (an empty list means "no items"; the store may delete the row).
 *   When it throws, the change is not applied and the tool reports the failure.
 */
export interface TodoPersistence {
  load(sessionKey: string): Promise<readonly unknown[] | undefined>;
  save(sessionKey: string, list: readonly TodoItem[]): Promise<void>;
}

export interface TodoStoreOptions {
  /** Sessions kept in memory; the least recently used beyond this are dropped. Default 1,000. */
  readonly maxSessions?: number;
  readonly persistence?: TodoPersistence;
  /**
   * The persistence is shared with other processes (a database): every read loads the list
   * instead of trusting this process' copy, which another worker may have made stale.
   */
  readonly shared?: boolean;
}

export const DEFAULT_TODO_SESSIONS = 1_000;

/**
 * The todo lists of all sessions, keyed by session key, with a least-recently-used cap so memory
 * stays bounded however many sessions come and go. Changes to one session run one at a time.
 * Created once by main.ts.
 */
export class TodoStore {
  readonly maxSessions: number;
  readonly #persistence: TodoPersistence | undefined;
  readonly #shared: boolean;
  /** Map order is recency order: the first key is the least recently used. */
  readonly #lists = new Map<string, readonly TodoItem[]>();
  readonly #serializer = new KeyedSerializer();

  constructor(options: TodoStoreOptions = {}) {
    const max = options.maxSessions ?? DEFAULT_TODO_SESSIONS;
    if (!Number.isInteger(max) || max < 1) throw new RangeError('maxSessions must be a positive integer');
    this.maxSessions = max;
    this.#persistence = options.persistence;
    this.#shared = options.shared === true && options.persistence !== undefined;
  }

  /** The current list of a session (empty when it has none). */
  read(sessionKey: string): Promise<readonly TodoItem[]> {
    return this.#serializer.run(sessionKey, () => this.#current(sessionKey));
  }

  /**
   * Replaces a session's list with `change(current)`. The new list is saved through the
   * persistence hook first and cached only once that succeeded.
   */
  update(
    sessionKey: string,
    change: (current: readonly TodoItem[]) => readonly TodoItem[],
  ): Promise<readonly TodoItem[]> {
    return this.#serializer.run(sessionKey, async () => {
      const next = Object.freeze([...change(await this.#current(sessionKey))]);
      await this.#persistence?.save(sessionKey, next);
      this.#remember(sessionKey, next);
      return next;
    });
  }

  /** Empties a session's list (e.g. when `/new` starts a fresh conversation under the same key). */
  clear(sessionKey: string): Promise<void> {
    return this.#serializer.run(sessionKey, async () => {
      await this.#persistence?.save(sessionKey, []);
      this.#lists.delete(sessionKey);
    });
  }

  /** Sessions whose list is held in memory now. */
  get size(): number {
    return this.#lists.size;
  }

  async #current(sessionKey: string): Promise<readonly TodoItem[]> {
    const cached = this.#shared ? undefined : this.#lists.get(sessionKey);
    if (cached !== undefined) {
      this.#remember(sessionKey, cached);
      return cached;
    }
    const loaded = await this.#persistence?.load(sessionKey);
    const list = Object.freeze(
      (loaded ?? []).flatMap((raw) => {
        const parsed = todoItemSchema.safeParse(raw);
        return parsed.success ? [parsed.data] : [];
      }),
    );
    this.#remember(sessionKey, list);
    return list;
  }

  #remember(sessionKey: string, list: readonly TodoItem[]): void {
    this.#lists.delete(sessionKey);
    this.#lists.set(sessionKey, list);
    while (this.#lists.size > this.maxSessions) {
      const oldest = this.#lists.keys().next();
      if (oldest.done === true) break;
      this.#lists.delete(oldest.value);
    }
  }
}
