import type { Database } from 'better-sqlite3';
import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import { assertSessionKey } from '../session-key.js';
import type {
  ListOutboxOptions,
  OutboxEntry,
  OutboxInput,
  OutboxOrigin,
  OutboxOutcome,
  RecentOutboxOptions,
} from './outbox-entry.js';
import { clampLimit, orUndefined, parseJsonColumn, parseRow, parseRows } from './sqlite-rows.js';

const outboxRow = z.object({
  id: z.string(),
  platform: z.string(),
  session_key: z.string(),
  turn_id: z.string(),
  kind: z.enum(['final', 'failed', 'parked']),
  origin: z.string(),
  event_ids: z.string(),
  text: z.string(),
  prompt: z.string().nullable(),
  created_at: z.number(),
  attempts: z.number(),
  last_attempt_at: z.number().nullable(),
  completed_at: z.number().nullable(),
  outcome: z.enum(['delivered', 'abandoned']).nullable(),
});

export const originSchema = z.object({
  platform: z.string(),
  chatType: z.string(),
  chatId: z.string(),
  threadId: z.string().optional(),
  userId: z.string().optional(),
  userName: z.string().optional(),
  replyToMessageId: z.string().optional(),
});

export const eventIdList = z.array(z.string());

export const promptSchema = z.object({
  reason: z.string().min(1).max(64),
  parkId: z.string().min(1).max(512),
  payload: z.json(),
});

/** A prompt's payload (an approval request with its command, a question) stays well below this. */
const MAX_PROMPT_LENGTH = 256 * 1024;

const MAX_ID_LENGTH = 512;
/** Chat answers are split by delivery; this only keeps a runaway row out of the database. */
export const MAX_TEXT_LENGTH = 1_000_000;

export interface OutboxRepo {
  enqueue(input: OutboxInput): boolean;
  get(id: string): OutboxEntry | undefined;
  list(options: ListOutboxOptions): OutboxEntry[];
  recent(options: RecentOutboxOptions): OutboxEntry[];
  markAttempt(id: string): number;
  complete(id: string, outcome: OutboxOutcome): boolean;
  prune(olderThan: number): number;
}

/**
 * The chat outbox: answers a gateway must deliver even when it missed their live event. A row is
 * written once (by the worker), attempted and completed by the gateway owning the platform.
 */
export function createOutboxRepo(db: Database, now: () => number): OutboxRepo {
  const insert = db.prepare(
    `INSERT INTO outbox (id, platform, session_key, turn_id, kind, origin, event_ids, text, prompt, created_at)
     VALUES (@id, @platform, @session_key, @turn_id, @kind, @origin, @event_ids, @text, @prompt, @created_at)
     ON CONFLICT (id) DO NOTHING`,
  );
  const select = db.prepare('SELECT * FROM outbox WHERE id = ?');
  const listStmt = db.prepare(
    `SELECT * FROM outbox WHERE platform = @platform AND completed_at IS NULL
       AND (@older_than IS NULL OR created_at <= @older_than)
     ORDER BY created_at, rowid LIMIT @limit`,
  );
  const pendingStmt = db.prepare(
    'SELECT * FROM outbox WHERE completed_at IS NULL ORDER BY created_at, rowid LIMIT ?',
  );
  const abandonedStmt = db.prepare(
    `SELECT * FROM outbox WHERE outcome = 'abandoned' ORDER BY completed_at DESC, rowid DESC LIMIT ?`,
  );
  const attempt = db.prepare(
    `UPDATE outbox SET attempts = attempts + 1, last_attempt_at = @at
     WHERE id = @id AND completed_at IS NULL RETURNING attempts`,
  );
  const completeStmt = db.prepare(
    'UPDATE outbox SET completed_at = @at, outcome = @outcome WHERE id = @id AND completed_at IS NULL',
  );
  // Done entries go after the retention; so do entries nobody delivered in that long (their
  // receipts are pruned too, so a late delivery could not tell what was already sent).
  const pruneStmt = db.prepare(
    `DELETE FROM outbox WHERE (completed_at IS NOT NULL AND completed_at <= @before)
       OR (completed_at IS NULL AND created_at <= @before)`,
  );

  return {
    enqueue: (input) => {
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
      const result = insert.run({
        id: checkId('outbox id', input.id),
        platform: checkId('platform', input.platform),
        session_key: assertSessionKey(input.sessionKey),
        turn_id: checkId('turn id', input.turnId),
        kind: input.kind,
        origin: JSON.stringify(origin.data),
        event_ids: JSON.stringify(eventIdList.parse(input.eventIds ?? [])),
        text: input.text,
        prompt,
        created_at: input.createdAt ?? now(),
      });
      return result.changes === 1;
    },
    get: (id) => {
      const row = select.get(checkId('outbox id', id));
      return row === undefined ? undefined : toEntry(parseRow(outboxRow, row, 'outbox'));
    },
    list: (options) =>
      parseRows(
        outboxRow,
        listStmt.all({
          platform: checkId('platform', options.platform),
          older_than: options.olderThan ?? null,
          limit: clampLimit(options.limit, 100, 1000),
        }),
        'outbox',
      ).map(toEntry),
    recent: (options) =>
      parseRows(
        outboxRow,
        (options.state === 'abandoned' ? abandonedStmt : pendingStmt).all(clampLimit(options.limit, 20, 200)),
        'outbox',
      ).map(toEntry),
    markAttempt: (id) => {
      const row = attempt.get({ id: checkId('outbox id', id), at: now() }) as
        | { attempts: number }
        | undefined;
      return row?.attempts ?? 0;
    },
    complete: (id, outcome) => {
      if (outcome !== 'delivered' && outcome !== 'abandoned') {
        throw new HermesError('store_failed', `unknown outbox outcome ${String(outcome)}`);
      }
      return completeStmt.run({ id: checkId('outbox id', id), at: now(), outcome }).changes === 1;
    },
    prune: (olderThan) => pruneStmt.run({ before: olderThan }).changes,
  };
}

function toEntry(row: z.infer<typeof outboxRow>): OutboxEntry {
  const origin: OutboxOrigin = parseJsonColumn(originSchema, row.origin, 'outbox origin');
  return {
    id: row.id,
    platform: row.platform,
    sessionKey: row.session_key,
    turnId: row.turn_id,
    eventIds: parseJsonColumn(eventIdList, row.event_ids, 'outbox event ids'),
    origin,
    kind: row.kind,
    text: row.text,
    prompt: row.prompt === null ? undefined : parseJsonColumn(promptSchema, row.prompt, 'outbox prompt'),
    createdAt: row.created_at,
    attempts: row.attempts,
    lastAttemptAt: orUndefined(row.last_attempt_at),
    completed:
      row.completed_at === null ? undefined : { outcome: row.outcome ?? 'delivered', at: row.completed_at },
  };
}

/** The prompt column: JSON for `parked` entries (where it is required), null for the others. */
export function checkPrompt(input: OutboxInput): string | null {
  if (input.kind !== 'parked') {
    if (input.prompt !== undefined)
      throw new HermesError('store_failed', 'only parked outbox entries carry a prompt');
    return null;
  }
  const parsed = promptSchema.safeParse(input.prompt);
  if (!parsed.success) {
    throw new HermesError(
      'store_failed',
      'a parked outbox entry needs its prompt (reason, park id, payload)',
    );
  }
  const json = JSON.stringify(parsed.data);
  if (json.length > MAX_PROMPT_LENGTH) {
    throw new HermesError(
      'store_failed',
      `outbox prompt must be at most ${MAX_PROMPT_LENGTH} characters of JSON`,
    );
  }
  return json;
}

function checkId(what: string, value: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH) {
    throw new HermesError(
      'store_failed',
      `${what} must be a non-empty string of at most ${MAX_ID_LENGTH} characters`,
    );
  }
  return value;
}
