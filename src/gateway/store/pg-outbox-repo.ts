import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import { assertSessionKey } from '../session-key.js';
import type {
  ListOutboxOptions,
  OutboxEntry,
  OutboxInput,
  OutboxOutcome,
  RecentOutboxOptions,
} from './outbox-entry.js';
import type { PgPool } from './pg-database.js';
import { pgJson, pgJsonText, pgText } from './pg-values.js';
import {
  checkPrompt,
  eventIdList,
  MAX_TEXT_LENGTH,
  originSchema,
  promptSchema,
} from './sqlite-outbox-repo.js';
import { clampLimit, orUndefined, parseRow, parseRows } from './sqlite-rows.js';
import { checkId } from './store-checks.js';

const outboxRow = z.object({
  id: z.string(),
  platform: z.string(),
  session_key: z.string(),
  turn_id: z.string(),
  kind: z.enum(['final', 'failed', 'parked']),
  origin: originSchema,
  event_ids: eventIdList,
  text: z.string(),
  prompt: promptSchema.nullable(),
  created_at: z.number(),
  attempts: z.number(),
  last_attempt_at: z.number().nullable(),
  completed_at: z.number().nullable(),
  outcome: z.enum(['delivered', 'abandoned']).nullable(),
});

export interface PgOutboxRepo {
  enqueue(input: OutboxInput): Promise<boolean>;
  get(id: string): Promise<OutboxEntry | undefined>;
  list(options: ListOutboxOptions): Promise<OutboxEntry[]>;
  recent(options: RecentOutboxOptions): Promise<OutboxEntry[]>;
  markAttempt(id: string): Promise<number>;
  complete(id: string, outcome: OutboxOutcome): Promise<boolean>;
  prune(olderThan: number): Promise<number>;
}

/** The chat outbox in PostgreSQL (same rules as the SQLite outbox repo). */
export function createPgOutboxRepo(pool: PgPool, now: () => number): PgOutboxRepo {
  return {
    enqueue: async (input) => {
      if (input.kind !== 'final' && input.kind !== 'failed' && input.kind !== 'parked') {
        throw new HermesError('store_failed', `unknown outbox kind ${String(input.kind)}`);
      }
      const prompt = checkPrompt(input);
      if (typeof input.text !== 'string' || input.text.length > MAX_TEXT_LENGTH) {
        throw new HermesError(
          'store_failed',
          `outbox text must be a string of at most ${MAX_TEXT_LENGTH} characters`,
        );
      }
      const origin = originSchema.safeParse(input.origin);
      if (!origin.success || origin.data.platform !== input.platform) {
        throw new HermesError('store_failed', 'outbox origin must name the chat of the entry’s platform');
      }
      const result = await pool.query(
        `INSERT INTO outbox (id, platform, session_key, turn_id, kind, origin, event_ids, text, prompt, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
        [
          checkId('outbox id', input.id),
          checkId('platform', input.platform),
          assertSessionKey(input.sessionKey),
          checkId('turn id', input.turnId),
          input.kind,
          pgJson(origin.data),
          pgJson(eventIdList.parse(input.eventIds ?? [])),
          pgText(input.text),
          prompt === null ? null : pgJsonText(prompt),
          input.createdAt ?? now(),
        ],
      );
      return result.rowCount === 1;
    },
    get: async (id) => {
      const result = await pool.query('SELECT * FROM outbox WHERE id = $1', [checkId('outbox id', id)]);
      return result.rows[0] === undefined
        ? undefined
        : toEntry(parseRow(outboxRow, result.rows[0], 'outbox'));
    },
    list: async (options) => {
      const result = await pool.query(
        `SELECT * FROM outbox WHERE platform = $1 AND completed_at IS NULL
           AND ($2::bigint IS NULL OR created_at <= $2)
         ORDER BY created_at, seq LIMIT $3`,
        [
          checkId('platform', options.platform),
          options.olderThan ?? null,
          clampLimit(options.limit, 100, 1000),
        ],
      );
      return parseRows(outboxRow, result.rows, 'outbox').map(toEntry);
    },
    recent: async (options) => {
      const result = await pool.query(
        options.state === 'abandoned'
          ? `SELECT * FROM outbox WHERE outcome = 'abandoned' ORDER BY completed_at DESC, seq DESC LIMIT $1`
          : 'SELECT * FROM outbox WHERE completed_at IS NULL ORDER BY created_at, seq LIMIT $1',
        [clampLimit(options.limit, 20, 200)],
      );
      return parseRows(outboxRow, result.rows, 'outbox').map(toEntry);
    },
    markAttempt: async (id) => {
      const result = await pool.query<{ attempts: number }>(
        `UPDATE outbox SET attempts = attempts + 1, last_attempt_at = $2
         WHERE id = $1 AND completed_at IS NULL RETURNING attempts`,
        [checkId('outbox id', id), now()],
      );
      return result.rows[0]?.attempts ?? 0;
    },
    complete: async (id, outcome) => {
      if (outcome !== 'delivered' && outcome !== 'abandoned') {
        throw new HermesError('store_failed', `unknown outbox outcome ${String(outcome)}`);
      }
      const result = await pool.query(
        'UPDATE outbox SET completed_at = $2, outcome = $3 WHERE id = $1 AND completed_at IS NULL',
        [checkId('outbox id', id), now(), outcome],
      );
      return result.rowCount === 1;
    },
    prune: async (olderThan) => {
      const result = await pool.query(
        `DELETE FROM outbox WHERE (completed_at IS NOT NULL AND completed_at <= $1)
           OR (completed_at IS NULL AND created_at <= $1)`,
        [olderThan],
      );
      return result.rowCount ?? 0;
    },
  };
}

function toEntry(row: z.infer<typeof outboxRow>): OutboxEntry {
  return {
    id: row.id,
    platform: row.platform,
    sessionKey: row.session_key,
    turnId: row.turn_id,
    eventIds: row.event_ids,
    origin: row.origin,
    kind: row.kind,
    text: row.text,
    prompt: row.prompt ?? undefined,
    createdAt: row.created_at,
    attempts: row.attempts,
    lastAttemptAt: orUndefined(row.last_attempt_at),
    completed:
      row.completed_at === null ? undefined : { outcome: row.outcome ?? 'delivered', at: row.completed_at },
  };
}
