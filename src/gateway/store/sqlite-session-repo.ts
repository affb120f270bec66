import type { Database } from 'better-sqlite3';
import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import { assertSessionId, assertSessionKey, newSessionId } from '../session-key.js';
import type { ListSessionsOptions, RotateResult, SessionPatch, SessionRecord } from './session-store.js';
import {
  clampLimit,
  keyPrefixCondition,
  orUndefined,
  parseJsonColumn,
  parseRow,
  parseRows,
  prefixParams,
} from './sqlite-rows.js';

const sessionRow = z.object({
  key: z.string(),
  session_id: z.string(),
  title: z.string().nullable(),
  model_override: z.string().nullable(),
  toolset_overrides: z.string().nullable(),
  yolo: z.number(),
  created_at: z.number(),
  session_started_at: z.number(),
  updated_at: z.number(),
});
type SessionRow = z.infer<typeof sessionRow>;

const toolsetList = z.array(z.string());
const MAX_TITLE_LENGTH = 200;
const MAX_PREFIX_LENGTH = 512;

export interface SessionRepo {
  get(key: string): SessionRecord | undefined;
  getOrCreate(key: string): SessionRecord;
  rotate(key: string): RotateResult;
  update(key: string, patch: SessionPatch): SessionRecord;
  list(options: ListSessionsOptions): SessionRecord[];
  keyOf(sessionId: string): string | undefined;
  /** Marks the session owning `sessionId` as active now (no-op for a rotated-away id). */
  touch(sessionId: string, at: number): void;
}

/** Sessions and the history of their ids; every write runs in an IMMEDIATE transaction. */
export function createSessionRepo(db: Database, now: () => number): SessionRepo {
  const selectByKey = db.prepare('SELECT * FROM sessions WHERE key = ?');
  const insertSession = db.prepare(
    `INSERT INTO sessions (key, session_id, title, model_override, toolset_overrides, yolo,
       created_at, session_started_at, updated_at)
     VALUES (@key, @session_id, @title, @model_override, @toolset_overrides, @yolo,
       @created_at, @session_started_at, @updated_at)`,
  );
  const updateSession = db.prepare(
    `UPDATE sessions SET session_id = @session_id, title = @title, model_override = @model_override,
       toolset_overrides = @toolset_overrides, yolo = @yolo, session_started_at = @session_started_at,
       updated_at = @updated_at
     WHERE key = @key`,
  );
  const insertId = db.prepare('INSERT INTO session_ids (id, session_key, started_at) VALUES (?, ?, ?)');
  const selectKeyOf = db.prepare('SELECT session_key FROM session_ids WHERE id = ?').pluck();
  const touchStmt = db.prepare('UPDATE sessions SET updated_at = ? WHERE session_id = ? AND updated_at < ?');
  const listStmt = db.prepare(
    `SELECT * FROM sessions WHERE ${keyPrefixCondition('key')}
     ORDER BY updated_at DESC, key LIMIT @limit`,
  );

  function read(key: string): SessionRow | undefined {
    const row = selectByKey.get(key);
    return row === undefined ? undefined : parseRow(sessionRow, row, 'session');
  }

  function create(key: string, at: number): SessionRow {
    const row: SessionRow = {
      key,
      session_id: newSessionId(),
      title: null,
      model_override: null,
      toolset_overrides: null,
      yolo: 0,
      created_at: at,
      session_started_at: at,
      updated_at: at,
    };
    insertId.run(row.session_id, key, at);
    insertSession.run(row);
    return row;
  }

  const getOrCreateTx = db.transaction((key: string) => read(key) ?? create(key, now()));

  const rotateTx = db.transaction((key: string): RotateResult => {
    const at = now();
    const existing = read(key);
    if (existing === undefined) return { session: toRecord(create(key, at)), previousSessionId: undefined };
    const next: SessionRow = {
      ...existing,
      session_id: newSessionId(),
      title: null,
      yolo: 0,
      session_started_at: at,
      updated_at: at,
    };
    insertId.run(next.session_id, key, at);
    updateSession.run(next);
    return { session: toRecord(next), previousSessionId: existing.session_id };
  });

  const updateTx = db.transaction((key: string, patch: SessionPatch): SessionRecord => {
    const at = now();
    const existing = read(key) ?? create(key, at);
    const next: SessionRow = { ...existing, updated_at: Math.max(at, existing.updated_at) };
    if (patch.title !== undefined) next.title = patch.title === null ? null : checkTitle(patch.title);
    if (patch.modelOverride !== undefined) next.model_override = emptyToNull(patch.modelOverride);
    if (patch.toolsetOverrides !== undefined) {
      next.toolset_overrides =
        patch.toolsetOverrides === null ? null : JSON.stringify(checkToolsets(patch.toolsetOverrides));
    }
    if (patch.yolo !== undefined) next.yolo = patch.yolo ? 1 : 0;
    updateSession.run(next);
    return toRecord(next);
  });

  return {
    get: (key) => {
      const row = read(assertSessionKey(key));
      return row === undefined ? undefined : toRecord(row);
    },
    // An existing session needs no write lock; a miss takes it and reads again inside it.
    getOrCreate: (key) => toRecord(read(assertSessionKey(key)) ?? getOrCreateTx.immediate(key)),
    rotate: (key) => rotateTx.immediate(assertSessionKey(key)),
    update: (key, patch) => updateTx.immediate(assertSessionKey(key), patch),
    list: (options) => {
      const prefix = options.prefix;
      if (prefix !== undefined && prefix.length > MAX_PREFIX_LENGTH) return [];
      const rows = listStmt.all({ ...prefixParams(prefix), limit: clampLimit(options.limit, 50, 1000) });
      return parseRows(sessionRow, rows, 'session').map(toRecord);
    },
    keyOf: (sessionId) => {
      const key = selectKeyOf.get(assertSessionId(sessionId));
      return typeof key === 'string' ? key : undefined;
    },
    touch: (sessionId, at) => {
      touchStmt.run(at, sessionId, at);
    },
  };
}

function toRecord(row: SessionRow): SessionRecord {
  return {
    key: row.key,
    sessionId: row.session_id,
    title: orUndefined(row.title),
    modelOverride: orUndefined(row.model_override),
    toolsetOverrides:
      row.toolset_overrides === null
        ? undefined
        : parseJsonColumn(toolsetList, row.toolset_overrides, 'toolset overrides'),
    yolo: row.yolo !== 0,
    createdAt: row.created_at,
    sessionStartedAt: row.session_started_at,
    updatedAt: row.updated_at,
  };
}

function checkTitle(title: string): string | null {
  const trimmed = title.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  if (trimmed === '') return null;
  return trimmed.length > MAX_TITLE_LENGTH ? trimmed.slice(0, MAX_TITLE_LENGTH) : trimmed;
}

function emptyToNull(value: string | null): string | null {
  if (value === null) return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

function checkToolsets(names: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of names) {
    if (typeof name !== 'string' || name.length === 0 || name.length > 100) {
      throw new HermesError(
        'store_failed',
        'toolset overrides must be non-empty names of at most 100 characters',
      );
    }
    if (!out.includes(name)) out.push(name);
  }
  return out;
}
