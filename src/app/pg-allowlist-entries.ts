import type { AllowlistEntries } from '../approval/shared-allowlist.js';
import type { PgPool } from '../gateway/store/pg-database.js';

/**
 * The always-allowlist in PostgreSQL (table `command_allowlist`): one row per entry, so two
 * processes adding at once both land (ON CONFLICT DO NOTHING) and every process reads the same
 * list. Entries are only added; an operator removes one with SQL (docs/operations.md).
 */
export function createPgAllowlistEntries(pool: PgPool, now: () => number = Date.now): AllowlistEntries {
  const list = async (): Promise<readonly string[]> => {
    const result = await pool.query<{ entry: string }>(
      'SELECT entry FROM command_allowlist ORDER BY added_at, entry',
    );
    return result.rows.map((row) => row.entry);
  };
  return {
    list,
    async add(entries) {
      const fresh = [...new Set(entries.filter((entry) => entry.trim() !== ''))];
      if (fresh.length > 0) {
        await pool.query(
          `INSERT INTO command_allowlist (entry, added_at)
           SELECT entry, $2 FROM unnest($1::text[]) AS entry
           ON CONFLICT (entry) DO NOTHING`,
          [fresh, now()],
        );
      }
      return list();
    },
  };
}
