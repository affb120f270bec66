import type { PgPool } from '../gateway/store/pg-database.js';
import { pgJson } from '../gateway/store/pg-values.js';
import type { TodoPersistence } from '../tools/todo/todo-store.js';

/** The todo tool's lists in PostgreSQL (table `todo_lists`), one row per session key. */
export function createPgTodoPersistence(pool: PgPool, now: () => number = Date.now): TodoPersistence {
  return {
    load: async (sessionKey) => {
      const result = await pool.query('SELECT items FROM todo_lists WHERE session_key = $1', [sessionKey]);
      const items: unknown = result.rows[0]?.items;
      return Array.isArray(items) ? (items as unknown[]) : undefined;
    },
    save: async (sessionKey, list) => {
      await pool.query(
        `INSERT INTO todo_lists (session_key, items, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (session_key) DO UPDATE SET items = excluded.items, updated_at = excluded.updated_at`,
        [sessionKey, pgJson(list), now()],
      );
    },
  };
}
