import type { Database } from 'better-sqlite3';
import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import { assertSessionKey } from '../session-key.js';
import type { ListParkedTurnsOptions, ParkedTurn, ParkedTurnInput } from './parked-turn-store.js';
import { orNull, orUndefined, parseRow, parseRows } from './sqlite-rows.js';

const parkedRow = z.object({
  turn_id: z.string(),
  session_key: z.string(),
  state: z.string(),
  reason: z.string(),
  created_at: z.number(),
  expires_at: z.number().nullable(),
});

const MAX_TURN_ID_LENGTH = 200;

export interface ParkedTurnRepo {
  save(input: ParkedTurnInput): void;
  get(turnId: string): ParkedTurn | undefined;
  take(turnId: string): ParkedTurn | undefined;
  replace(turnId: string, reason: string, next: ParkedTurnInput): boolean;
  delete(turnId: string): boolean;
  list(options: ListParkedTurnsOptions): ParkedTurn[];
}

/**
 * Turns waiting for something (an approval, mostly). Expired turns are never dropped here: the
 * owner lists them (`expiredBy`) and resumes each with a timeout outcome, so no turn ends in silence.
 */
export function createParkedTurnRepo(db: Database, now: () => number): ParkedTurnRepo {
  const upsert = db.prepare(
    `INSERT INTO parked_turns (turn_id, session_key, state, reason, created_at, expires_at)
     VALUES (@turn_id, @session_key, @state, @reason, @created_at, @expires_at)
     ON CONFLICT (turn_id) DO UPDATE SET session_key = excluded.session_key, state = excluded.state,
       reason = excluded.reason, created_at = excluded.created_at, expires_at = excluded.expires_at`,
  );
  const select = db.prepare('SELECT * FROM parked_turns WHERE turn_id = ?');
  const remove = db.prepare('DELETE FROM parked_turns WHERE turn_id = ?');
  const listStmt = db.prepare(
    `SELECT * FROM parked_turns
     WHERE (@session_key IS NULL OR session_key = @session_key)
       AND (@expired_by IS NULL OR (expires_at IS NOT NULL AND expires_at <= @expired_by))
     ORDER BY created_at, turn_id`,
  );

  function read(turnId: string): ParkedTurn | undefined {
    const row = select.get(turnId);
    return row === undefined ? undefined : toTurn(parseRow(parkedRow, row, 'parked turn'));
  }

  const takeTx = db.transaction((turnId: string) => {
    const turn = read(turnId);
    if (turn !== undefined) remove.run(turnId);
    return turn;
  });

  function save(input: ParkedTurnInput): void {
    let state: string | undefined;
    try {
      state = JSON.stringify(input.state);
    } catch (error) {
      throw new HermesError('store_failed', 'parked turn state is not JSON-serialisable', { cause: error });
    }
    if (state === undefined)
      throw new HermesError('store_failed', 'parked turn state is not JSON-serialisable');
    upsert.run({
      turn_id: checkTurnId(input.turnId),
      session_key: assertSessionKey(input.sessionKey),
      state,
      reason: input.reason,
      created_at: input.createdAt ?? now(),
      expires_at: orNull(input.expiresAt),
    });
  }

  const replaceTx = db.transaction((turnId: string, reason: string, next: ParkedTurnInput) => {
    if (read(turnId)?.reason !== reason) return false;
    save(next);
    return true;
  });

  return {
    save,
    get: (turnId) => read(checkTurnId(turnId)),
    take: (turnId) => takeTx.immediate(checkTurnId(turnId)),
    replace: (turnId, reason, next) => {
      if (next.turnId !== turnId)
        throw new HermesError('store_failed', 'a parked turn is replaced under its own id');
      return replaceTx.immediate(checkTurnId(turnId), reason, next);
    },
    delete: (turnId) => remove.run(checkTurnId(turnId)).changes > 0,
    list: (options) =>
      parseRows(
        parkedRow,
        listStmt.all({ session_key: options.sessionKey ?? null, expired_by: options.expiredBy ?? null }),
        'parked turn',
      ).map(toTurn),
  };
}

function toTurn(row: z.infer<typeof parkedRow>): ParkedTurn {
  let state: unknown;
  try {
    state = JSON.parse(row.state);
  } catch (error) {
    throw new HermesError('store_failed', `damaged state of parked turn ${row.turn_id}`, { cause: error });
  }
  return {
    turnId: row.turn_id,
    sessionKey: row.session_key,
    state,
    reason: row.reason,
    createdAt: row.created_at,
    expiresAt: orUndefined(row.expires_at),
  };
}

function checkTurnId(turnId: string): string {
  if (typeof turnId !== 'string' || turnId.length === 0 || turnId.length > MAX_TURN_ID_LENGTH) {
    throw new HermesError('store_failed', `a turn id must be 1-${MAX_TURN_ID_LENGTH} characters`);
  }
  return turnId;
}
