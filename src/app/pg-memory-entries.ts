import { z } from 'zod';
import { inPgTransaction, type PgPool } from '../gateway/store/pg-database.js';
import { pgJson } from '../gateway/store/pg-values.js';
import type { MemoryEntriesBackend } from '../tools/memory/memory-store.js';

const entryList = z.array(z.string());

/**
 * The memory tool's entries in PostgreSQL (table `memory_entries`): one row per scope and target.
 * An update locks the row (created first when missing) for its read-change-write, so two workers
 * adding at once never lose each other's entry; a change that throws (over the cap) writes nothing.
 */
export function createPgMemoryEntries(pool: PgPool, now: () => number = Date.now): MemoryEntriesBackend {
  const parse = (value: unknown): readonly string[] => {
    const parsed = entryList.safeParse(value);
    return parsed.success ? parsed.data : [];
  };
  return {
    read: async (scope, target) => {
      const result = await pool.query('SELECT entries FROM memory_entries WHERE scope = $1 AND target = $2', [
        scope,
        target,
      ]);
      return parse(result.rows[0]?.entries);
    },
    update: (scope, target, change) =>
      inPgTransaction(pool, async (client) => {
        await client.query(
          `INSERT INTO memory_entries (scope, target, updated_at) VALUES ($1, $2, $3)
           ON CONFLICT (scope, target) DO NOTHING`,
          [scope, target, now()],
        );
        const current = await client.query(
          'SELECT entries FROM memory_entries WHERE scope = $1 AND target = $2 FOR UPDATE',
          [scope, target],
        );
        const { next, result } = change(parse(current.rows[0]?.entries));
        if (next !== undefined) {
          await client.query(
            'UPDATE memory_entries SET entries = $3, updated_at = $4 WHERE scope = $1 AND target = $2',
            [scope, target, pgJson(next), now()],
          );
        }
        return result;
      }),
  };
}
