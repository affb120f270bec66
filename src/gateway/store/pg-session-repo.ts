import { z } from 'zod';
import { assertSessionId, assertSessionKey, newSessionId } from '../session-key.js';
import { inPgTransaction, type PgPool, type PgQueryable } from './pg-database.js';
import type { ListSessionsOptions, RotateResult, SessionPatch, SessionRecord } from './session-store.js';
import { clampLimit, orUndefined, parseRow, parseRows, prefixParams } from './sqlite-rows.js';
import { checkTitle, checkToolsets, emptyToNull } from './store-checks.js';

const sessionRow = z.object({
  key: z.string(),
  session_id: z.string(),
  title: z.string().nullable(),
  model_override: z.string().nullable(),
  toolset_overrides: z.array(z.string()).nullable(),
  yolo: z.boolean(),
  created_at: z.number(),
  session_started_at: z.number(),
  updated_at: z.number(),
});
type SessionRow = z.infer<typeof sessionRow>;

const MAX_PREFIX_LENGTH = 512;

/** SQL condition matching `column` against `$n` (prefix) / `$n+1` (prefix with colon) on `:` boundaries. */
export function pgKeyPrefixCondition(column: string, n: number): string {
  return `($${n}::text IS NULL OR ${column} = $${n} OR left(${column}, length($${n + 1}::text)) = $${n + 1})`;
}

export interface PgSessionRepo {
  get(key: string): Promise<SessionRecord | undefined>;
  getOrCreate(key: string): Promise<SessionRecord>;
  rotate(key: string): Promise<RotateResult>;
  update(key: string, patch: SessionPatch): Promise<SessionRecord>;
  list(options: ListSessionsOptions): Promise<SessionRecord[]>;
  keyOf(sessionId: string): Promise<string | undefined>;
}

/** Sessions and the history of their ids, in PostgreSQL; a write locks the session's row. */
export function createPgSessionRepo(pool: PgPool, now: () => number): PgSessionRepo {
  async function read(db: PgQueryable, key: string, lock = false): Promise<SessionRow | undefined> {
    const result = await db.query(`SELECT * FROM sessions WHERE key = $1${lock ? ' FOR UPDATE' : ''}`, [key]);
    return result.rows[0] === undefined ? undefined : parseRow(sessionRow, result.rows[0], 'session');
  }

  /** Inserts the key's session unless it exists (then undefined: another caller made it). */
  async function create(db: PgQueryable, key: string, at: number): Promise<SessionRow | undefined> {
    const sessionId = newSessionId();
    const inserted = await db.query(
      `INSERT INTO sessions (key, session_id, created_at, session_started_at, updated_at)
       VALUES ($1, $2, $3, $3, $3) ON CONFLICT (key) DO NOTHING RETURNING *`,
      [key, sessionId, at],
    );
    if (inserted.rows[0] === undefined) return undefined;
    await db.query('INSERT INTO session_ids (id, session_key, started_at) VALUES ($1, $2, $3)', [
      sessionId,
      key,
      at,
    ]);
    return parseRow(sessionRow, inserted.rows[0], 'session');
  }

  /** The locked row of the key, created first when missing; `created` tells which. */
  async function lockOrCreate(
    db: PgQueryable,
    key: string,
    at: number,
  ): Promise<{ row: SessionRow; created: boolean }> {
    const made = await create(db, key, at);
    if (made !== undefined) return { row: made, created: true };
    const row = await read(db, key, true);
    if (row === undefined) throw new Error(`session ${key} vanished`);
    return { row, created: false };
  }

  async function write(db: PgQueryable, row: SessionRow): Promise<void> {
    await db.query(
      `UPDATE sessions SET session_id = $2, title = $3, model_override = $4, toolset_overrides = $5,
         yolo = $6, session_started_at = $7, updated_at = $8 WHERE key = $1`,
      [
        row.key,
        row.session_id,
        row.title,
        row.model_override,
        row.toolset_overrides === null ? null : JSON.stringify(row.toolset_overrides),
        row.yolo,
        row.session_started_at,
        row.updated_at,
      ],
    );
  }

  return {
    get: async (key) => {
      const row = await read(pool, assertSessionKey(key));
      return row === undefined ? undefined : toRecord(row);
    },
    getOrCreate: async (key) => {
      assertSessionKey(key);
      const existing = await read(pool, key);
      if (existing !== undefined) return toRecord(existing);
      return inPgTransaction(pool, async (client) => toRecord((await lockOrCreate(client, key, now())).row));
    },
    rotate: (key) => {
      assertSessionKey(key);
      return inPgTransaction(pool, async (client) => {
        const at = now();
        const { row, created } = await lockOrCreate(client, key, at);
        if (created) return { session: toRecord(row), previousSessionId: undefined };
        const next: SessionRow = {
          ...row,
          session_id: newSessionId(),
          title: null,
          yolo: false,
          session_started_at: at,
          updated_at: at,
        };
        await client.query('INSERT INTO session_ids (id, session_key, started_at) VALUES ($1, $2, $3)', [
          next.session_id,
          key,
          at,
        ]);
        await write(client, next);
        return { session: toRecord(next), previousSessionId: row.session_id };
      });
    },
    update: (key, patch) => {
      assertSessionKey(key);
      return inPgTransaction(pool, async (client) => {
        const at = now();
        const { row } = await lockOrCreate(client, key, at);
        const next: SessionRow = { ...row, updated_at: Math.max(at, row.updated_at) };
        if (patch.title !== undefined) next.title = patch.title === null ? null : checkTitle(patch.title);
        if (patch.modelOverride !== undefined) next.model_override = emptyToNull(patch.modelOverride);
        if (patch.toolsetOverrides !== undefined) {
          next.toolset_overrides =
            patch.toolsetOverrides === null ? null : checkToolsets(patch.toolsetOverrides);
        }
        if (patch.yolo !== undefined) next.yolo = patch.yolo;
        await write(client, next);
        return toRecord(next);
      });
    },
    list: async (options) => {
      const prefix = options.prefix;
      if (prefix !== undefined && prefix.length > MAX_PREFIX_LENGTH) return [];
      const { prefix: p, prefixColon } = prefixParams(prefix);
      const result = await pool.query(
        `SELECT * FROM sessions WHERE ${pgKeyPrefixCondition('key', 1)}
         ORDER BY updated_at DESC, key LIMIT $3`,
        [p, prefixColon, clampLimit(options.limit, 50, 1000)],
      );
      return parseRows(sessionRow, result.rows, 'session').map(toRecord);
    },
    keyOf: async (sessionId) => {
      const result = await pool.query<{ session_key: string }>(
        'SELECT session_key FROM session_ids WHERE id = $1',
        [assertSessionId(sessionId)],
      );
      return result.rows[0]?.session_key;
    },
  };
}

function toRecord(row: SessionRow): SessionRecord {
  return {
    key: row.key,
    sessionId: row.session_id,
    title: orUndefined(row.title),
    modelOverride: orUndefined(row.model_override),
    toolsetOverrides: row.toolset_overrides ?? undefined,
    yolo: row.yolo,
    createdAt: row.created_at,
    sessionStartedAt: row.session_started_at,
    updatedAt: row.updated_at,
  };
}
