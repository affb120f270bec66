import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import { assertSessionKey } from '../session-key.js';
import type { ListParkedTurnsOptions, ParkedTurn, ParkedTurnInput } from './parked-turn-store.js';
import type { PgPool } from './pg-database.js';
import { pgJsonText } from './pg-values.js';
import { orUndefined, parseRow, parseRows } from './sqlite-rows.js';
import { checkId, parkedStateJson } from './store-checks.js';

const parkedRow = z.object({
  turn_id: z.string(),
  session_key: z.string(),
  state: z.unknown(),
  reason: z.string(),
  created_at: z.number(),
  expires_at: z.number().nullable(),
});
const MAX_TURN_ID_LENGTH = 200;

export interface PgParkedTurnRepo {
  save(input: ParkedTurnInput): Promise<void>;
  get(turnId: string): Promise<ParkedTurn | undefined>;
  take(turnId: string): Promise<ParkedTurn | undefined>;
  replace(turnId: string, reason: string, next: ParkedTurnInput): Promise<boolean>;
  delete(turnId: string): Promise<boolean>;
  list(options: ListParkedTurnsOptions): Promise<ParkedTurn[]>;
}

/** Parked turns in PostgreSQL: `take` is one DELETE … RETURNING, so exactly one caller gets a turn. */
export function createPgParkedTurnRepo(pool: PgPool, now: () => number): PgParkedTurnRepo {
  const turnIdOf = (turnId: string) => checkId('turn id', turnId, MAX_TURN_ID_LENGTH);
  return {
    save: async (input) => {
      const state = pgJsonText(parkedStateJson(input.state));
      await pool.query(
        `INSERT INTO parked_turns (turn_id, session_key, state, reason, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (turn_id) DO UPDATE SET session_key = excluded.session_key, state = excluded.state,
           reason = excluded.reason, created_at = excluded.created_at, expires_at = excluded.expires_at`,
        [
          turnIdOf(input.turnId),
          assertSessionKey(input.sessionKey),
          state,
          input.reason,
          input.createdAt ?? now(),
          input.expiresAt ?? null,
        ],
      );
    },
    get: async (turnId) => {
      const result = await pool.query('SELECT * FROM parked_turns WHERE turn_id = $1', [turnIdOf(turnId)]);
      return result.rows[0] === undefined ? undefined : toTurn(result.rows[0]);
    },
    take: async (turnId) => {
      const result = await pool.query('DELETE FROM parked_turns WHERE turn_id = $1 RETURNING *', [
        turnIdOf(turnId),
      ]);
      return result.rows[0] === undefined ? undefined : toTurn(result.rows[0]);
    },
    replace: async (turnId, reason, next) => {
      if (next.turnId !== turnId)
        throw new HermesError('store_failed', 'a parked turn is replaced under its own id');
      // One UPDATE: a concurrent one waits for the row and then sees the new reason (no match).
      const result = await pool.query(
        `UPDATE parked_turns SET session_key = $2, state = $3, reason = $4, created_at = $5, expires_at = $6
         WHERE turn_id = $1 AND reason = $7`,
        [
          turnIdOf(turnId),
          assertSessionKey(next.sessionKey),
          pgJsonText(parkedStateJson(next.state)),
          next.reason,
          next.createdAt ?? now(),
          next.expiresAt ?? null,
          reason,
        ],
      );
      return (result.rowCount ?? 0) > 0;
    },
    delete: async (turnId) => {
      const result = await pool.query('DELETE FROM parked_turns WHERE turn_id = $1', [turnIdOf(turnId)]);
      return (result.rowCount ?? 0) > 0;
    },
    list: async (options) => {
      const result = await pool.query(
        `SELECT * FROM parked_turns
         WHERE ($1::text IS NULL OR session_key = $1)
           AND ($2::bigint IS NULL OR (expires_at IS NOT NULL AND expires_at <= $2))
         ORDER BY created_at, turn_id`,
        [options.sessionKey ?? null, options.expiredBy ?? null],
      );
      return parseRows(parkedRow, result.rows, 'parked turn').map(fromRow);
    },
  };
}

function toTurn(row: unknown): ParkedTurn {
  return fromRow(parseRow(parkedRow, row, 'parked turn'));
}

function fromRow(row: z.infer<typeof parkedRow>): ParkedTurn {
  return {
    turnId: row.turn_id,
    sessionKey: row.session_key,
    state: row.state,
    reason: row.reason,
    createdAt: row.created_at,
    expiresAt: orUndefined(row.expires_at),
  };
}
