import type { PgPool } from './pg-database.js';
import { pgText } from './pg-values.js';
import { clampLimit, parseRows } from './sqlite-rows.js';
import { toTurnFailure, turnFailureRow, turnFailureValues } from './sqlite-turn-failure-repo.js';
import type { TurnFailure, TurnFailureInput } from './turn-failure-store.js';

export interface PgTurnFailureRepo {
  record(input: TurnFailureInput): Promise<boolean>;
  list(limit: number | undefined): Promise<TurnFailure[]>;
  prune(olderThan: number): Promise<number>;
}

/** Failed turns in PostgreSQL (same rules as the SQLite repo). */
export function createPgTurnFailureRepo(pool: PgPool, now: () => number): PgTurnFailureRepo {
  return {
    record: async (input) => {
      const row = turnFailureValues(input, now);
      const result = await pool.query(
        `INSERT INTO turn_failures (turn_id, session_key, platform, code, message, at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (turn_id) DO NOTHING`,
        [row.turn_id, row.session_key, row.platform, row.code, pgText(row.message), row.at],
      );
      return result.rowCount === 1;
    },
    list: async (limit) => {
      const result = await pool.query('SELECT * FROM turn_failures ORDER BY at DESC, turn_id DESC LIMIT $1', [
        clampLimit(limit, 20, 200),
      ]);
      return parseRows(turnFailureRow, result.rows, 'turn failure').map(toTurnFailure);
    },
    prune: async (olderThan) => {
      const result = await pool.query('DELETE FROM turn_failures WHERE at <= $1', [olderThan]);
      return result.rowCount ?? 0;
    },
  };
}
