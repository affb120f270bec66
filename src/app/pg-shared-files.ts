import type { PgPool } from '../gateway/store/pg-database.js';
import type { SharedFiles } from '../lib/shared-files.js';

/** Least time between two sweeps of expired files, ms. */
const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * Spilled-over results and chat attachments in PostgreSQL (table `shared_files`, BYTEA), keyed by
 * the path the agent was given. An expired file is never returned; expired rows are deleted at
 * most every ten minutes, piggy-backed on a `put` (failures there are ignored: the next one
 * tries again).
 */
export function createPgSharedFiles(pool: PgPool, now: () => number = Date.now): SharedFiles {
  let lastPrune = Number.NEGATIVE_INFINITY;
  return {
    async put(path, kind, content, ttlMs) {
      const at = now();
      await pool.query(
        `INSERT INTO shared_files (path, kind, content, size, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (path) DO UPDATE SET kind = EXCLUDED.kind, content = EXCLUDED.content,
           size = EXCLUDED.size, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`,
        [
          path,
          kind,
          Buffer.from(content.buffer, content.byteOffset, content.byteLength),
          content.byteLength,
          at,
          ttlMs === undefined ? null : at + ttlMs,
        ],
      );
      if (at - lastPrune >= PRUNE_EVERY_MS) {
        lastPrune = at;
        await pool.query('DELETE FROM shared_files WHERE expires_at < $1', [at]).catch(() => undefined);
      }
    },
    async get(path) {
      const result = await pool.query<{ content: Buffer }>(
        'SELECT content FROM shared_files WHERE path = $1 AND (expires_at IS NULL OR expires_at >= $2)',
        [path, now()],
      );
      return result.rows[0]?.content;
    },
  };
}
