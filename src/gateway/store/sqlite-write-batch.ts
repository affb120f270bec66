import type { Database } from 'better-sqlite3';

/** At most this many writes share one transaction (another process waits for the lock meanwhile). */
export const MAX_WRITES_PER_COMMIT = 256;

export interface SqliteWriteBatch {
  /**
   * Runs `work` (synchronous store code) in the next group commit and resolves with its result
   * once that commit is durable, or rejects with what `work` threw (its own writes undone, the
   * others' kept) or with the commit's error (every write of the group undone).
   */
  write<T>(work: () => T): Promise<T>;
  /** Runs every queued write now (at close). */
  flush(): void;
}

interface QueuedWrite {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown };

/** Thrown inside the group when SQLite rolled the whole transaction back on its own. */
class GroupAborted extends Error {
  constructor(readonly reason: unknown) {
    super('group commit aborted');
  }
}

/**
 * Group commit for one better-sqlite3 connection. Writes queued during one turn of the event loop
 * run together at the next `setImmediate`: one IMMEDIATE transaction, each write inside its own
 * savepoint (better-sqlite3 nests transaction functions that way), one COMMIT. Under load a commit,
 * and the WAL pages it writes, is shared by every turn that wrote in that tick; a lone write runs
 * in its own transaction as before. Nothing is reported done before its commit: a caller awaiting
 * `write` sees exactly what it saw when each store call committed by itself, plus one tick.
 */
export function createSqliteWriteBatch(db: Database): SqliteWriteBatch {
  let queued: QueuedWrite[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  const inSavepoint = db.transaction((work: () => unknown) => work());
  const group = db.transaction((writes: readonly QueuedWrite[]): Outcome[] => {
    const outcomes: Outcome[] = [];
    for (const write of writes) {
      // Work that ended the transaction without throwing must not let the rest run outside it.
      if (!db.inTransaction) throw new GroupAborted(new Error('the group transaction ended early'));
      try {
        outcomes.push({ ok: true, value: inSavepoint(write.work) });
      } catch (error) {
        // SQLite ends the transaction itself on some errors (a full disk, an I/O error): the
        // writes before this one are gone too, and later ones must not run outside it.
        if (!db.inTransaction) throw new GroupAborted(error);
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  });

  function runAlone(write: QueuedWrite): void {
    try {
      write.resolve(write.work());
    } catch (error) {
      write.reject(error);
    }
  }

  function runGroup(writes: readonly QueuedWrite[]): void {
    let outcomes: Outcome[];
    try {
      outcomes = group.immediate(writes);
    } catch (error) {
      const reason = error instanceof GroupAborted ? error.reason : error;
      for (const write of writes) write.reject(reason);
      return;
    }
    writes.forEach((write, i) => {
      const outcome = outcomes[i];
      if (outcome === undefined) write.reject(new Error('group commit lost a write'));
      else if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.error);
    });
  }

  function flush(): void {
    if (scheduled !== undefined) clearImmediate(scheduled);
    scheduled = undefined;
    const writes = queued;
    queued = [];
    for (let start = 0; start < writes.length; start += MAX_WRITES_PER_COMMIT) {
      const chunk = writes.slice(start, start + MAX_WRITES_PER_COMMIT);
      if (chunk.length === 1) runAlone(chunk[0] as QueuedWrite);
      else runGroup(chunk);
    }
  }

  return {
    write<T>(work: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queued.push({ work, resolve: resolve as (value: unknown) => void, reject });
        scheduled ??= setImmediate(flush);
      });
    },
    flush,
  };
}
