import type { Database } from 'better-sqlite3';
import type { Logger } from 'pino';
import { errorText } from './sqlite-database.js';

/** Messages indexed per transaction by the periodic catch-up (a few ms of event loop each). */
export const INDEX_BATCH_SIZE = 500;

export interface MessageIndexer {
  /**
   * Indexes messages not yet in the search index, oldest first, in one IMMEDIATE transaction:
   * at most `limit` of them, all when `limit` is undefined. True when nothing is left to index.
   */
  catchUp(limit?: number): boolean;
  /** Rebuilds the whole index from `searchable_messages` and moves the watermark to the end. */
  rebuild(): void;
  /** Starts the periodic catch-up (no-op when already running or `intervalMs <= 0`). */
  start(intervalMs: number): void;
  /** Stops the periodic catch-up; idempotent. */
  stop(): void;
}

/**
 * Deferred full-text indexing (migration 6): `messages_fts` holds exactly the searchable rows with
 * id <= `messages_fts_watermark.indexed_to`, and the triggers keep that true for inserts below,
 * updates and deletes. Indexing in batches costs a few µs per message instead of tens of µs for
 * one row per transaction. The catch-up reads the watermark inside its write lock, so several
 * processes on the same file never index a row twice.
 */
export function createMessageIndexer(db: Database, logger: Logger): MessageIndexer {
  const behind = db
    .prepare(
      `SELECT (SELECT indexed_to FROM messages_fts_watermark) <
         (SELECT coalesce(max(id), 0) FROM messages)`,
    )
    .pluck();
  const watermark = db.prepare('SELECT indexed_to FROM messages_fts_watermark').pluck();
  const nextBatch = db
    .prepare(
      'SELECT count(*), max(id) FROM (SELECT id FROM messages WHERE id > ? ORDER BY id LIMIT (SELECT ?))',
    )
    .raw();
  const indexRange = db.prepare(
    `INSERT INTO messages_fts (rowid, content)
     SELECT id, content FROM searchable_messages WHERE id > ? AND id <= ?`,
  );
  const setWatermark = db.prepare('UPDATE messages_fts_watermark SET indexed_to = ?');
  const lastId = db.prepare('SELECT coalesce(max(id), 0) FROM messages').pluck();
  const rebuildIndex = db.prepare("INSERT INTO messages_fts (messages_fts) VALUES ('rebuild')");

  /** Returns true when the batch reached the end. */
  const step = db.transaction((limit: number): boolean => {
    const from = Number(watermark.get());
    const row: unknown = nextBatch.get(from, limit);
    const [count, to] = Array.isArray(row) ? (row as unknown[]) : [];
    if (typeof to !== 'number' || typeof count !== 'number') return true;
    indexRange.run(from, to);
    setWatermark.run(to);
    return limit < 0 || count < limit;
  });

  const rebuildTx = db.transaction(() => {
    rebuildIndex.run();
    setWatermark.run(Number(lastId.get()));
  });

  let interval: NodeJS.Timeout | undefined;
  let follow: NodeJS.Immediate | undefined;

  const catchUp = (limit?: number): boolean => {
    if (behind.get() !== 1) return true;
    return step.immediate(limit === undefined ? -1 : Math.max(1, Math.trunc(limit)));
  };

  /** One bounded batch; a full one schedules the next right after pending I/O. */
  const tick = (): void => {
    follow = undefined;
    let done = true;
    try {
      done = catchUp(INDEX_BATCH_SIZE);
    } catch (error) {
      // Nothing is lost: the rows stay above the watermark for the next tick or search.
      logger.warn({ err: errorText(error) }, 'search index catch-up failed');
    }
    if (!done && interval !== undefined) follow = setImmediate(tick).unref();
  };

  return {
    catchUp,
    rebuild: () => rebuildTx.immediate(),
    start: (intervalMs) => {
      if (interval !== undefined || !(intervalMs > 0)) return;
      interval = setInterval(() => {
        if (follow === undefined) tick();
      }, intervalMs).unref();
    },
    stop: () => {
      if (interval !== undefined) clearInterval(interval);
      if (follow !== undefined) clearImmediate(follow);
      interval = undefined;
      follow = undefined;
    },
  };
}
