import type { Database } from 'better-sqlite3';
import { z } from 'zod';
import { clampLimit, parseRows } from './sqlite-rows.js';
import { checkId } from './store-checks.js';
import { MAX_TURN_FAILURE_MESSAGE, type TurnFailure, type TurnFailureInput } from './turn-failure-store.js';

export const turnFailureRow = z.object({
  turn_id: z.string(),
  session_key: z.string(),
  platform: z.string(),
  code: z.string(),
  message: z.string(),
  at: z.coerce.number(),
});

export interface TurnFailureRepo {
  record(input: TurnFailureInput): boolean;
  list(limit: number | undefined): TurnFailure[];
  prune(olderThan: number): number;
}

/** A failure record's columns, checked: ids bounded, the message cut to its limit. */
export function turnFailureValues(input: TurnFailureInput, now: () => number) {
  const message = typeof input.message === 'string' ? input.message : '';
  return {
    turn_id: checkId('turn id', input.turnId),
    session_key: checkId('session key', input.sessionKey),
    platform: checkId('platform', input.platform, 64),
    code: checkId('failure code', input.code, 64),
    message:
      message.length > MAX_TURN_FAILURE_MESSAGE
        ? `${message.slice(0, MAX_TURN_FAILURE_MESSAGE - 1)}…`
        : message,
    at: input.at ?? now(),
  };
}

export function toTurnFailure(row: z.infer<typeof turnFailureRow>): TurnFailure {
  return {
    turnId: row.turn_id,
    sessionKey: row.session_key,
    platform: row.platform,
    code: row.code,
    message: row.message,
    at: row.at,
  };
}

/** Failed turns in SQLite: one row per turn id (the first record wins), newest listed first. */
export function createTurnFailureRepo(db: Database, now: () => number): TurnFailureRepo {
  const insert = db.prepare(
    `INSERT INTO turn_failures (turn_id, session_key, platform, code, message, at)
     VALUES (@turn_id, @session_key, @platform, @code, @message, @at) ON CONFLICT (turn_id) DO NOTHING`,
  );
  const listStmt = db.prepare('SELECT * FROM turn_failures ORDER BY at DESC, rowid DESC LIMIT ?');
  const pruneStmt = db.prepare('DELETE FROM turn_failures WHERE at <= ?');
  return {
    record: (input) => insert.run(turnFailureValues(input, now)).changes === 1,
    list: (limit) =>
      parseRows(turnFailureRow, listStmt.all(clampLimit(limit, 20, 200)), 'turn failure').map(toTurnFailure),
    prune: (olderThan) => pruneStmt.run(olderThan).changes,
  };
}
