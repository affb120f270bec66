import type { Database } from 'better-sqlite3';
import { z } from 'zod';
import { orNull, orUndefined, parseJsonColumn, parseRow } from './sqlite-rows.js';
import { checkId } from './store-checks.js';
import type {
  WebhookDeliveryState,
  WebhookRunInput,
  WebhookRunPatch,
  WebhookRunRecord,
} from './webhook-run-store.js';

/** A `webhook_runs` row, the same in SQLite and PostgreSQL. */
export const runRow = z.object({
  run_id: z.string(),
  route: z.string(),
  delivery_id: z.string(),
  session_key: z.string(),
  event_id: z.string(),
  created_at: z.number(),
  updated_at: z.number(),
  status: z.enum(['queued', 'running', 'done', 'failed', 'delivery_failed']),
  result: z.string().nullable(),
  error: z.string().nullable(),
  delivery: z.string(),
  lease_until: z.number().nullable(),
});

export const deliverySchema: z.ZodType<WebhookDeliveryState> = z.union([
  z.object({ status: z.literal('pending') }),
  z.object({ status: z.literal('delivered'), attempts: z.number() }),
  z.object({ status: z.literal('logged') }),
  z.object({ status: z.literal('skipped') }),
  z.object({ status: z.literal('failed'), attempts: z.number(), error: z.string() }),
]);

/** Results are capped like the run record in memory was (the callback carries the whole text). */
export const MAX_TEXT_LENGTH = 200_000;

export interface WebhookRunRepo {
  save(input: WebhookRunInput): void;
  get(runId: string): WebhookRunRecord | undefined;
  findByEvent(eventId: string): WebhookRunRecord | undefined;
  update(runId: string, patch: WebhookRunPatch): boolean;
  claim(runId: string, leaseUntil: number): boolean;
  remove(runId: string): boolean;
  prune(olderThan: number): number;
}

/** Webhook run records: one row per accepted delivery, with its delivery state and lease. */
export function createWebhookRunRepo(db: Database, now: () => number): WebhookRunRepo {
  const insert = db.prepare(
    `INSERT INTO webhook_runs (run_id, route, delivery_id, session_key, event_id, created_at,
       updated_at, status, delivery)
     VALUES (@run_id, @route, @delivery_id, @session_key, @event_id, @created_at, @created_at,
       'queued', '{"status":"pending"}')
     ON CONFLICT (run_id) DO NOTHING`,
  );
  const select = db.prepare('SELECT * FROM webhook_runs WHERE run_id = ?');
  const selectByEvent = db.prepare(
    'SELECT * FROM webhook_runs WHERE event_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1',
  );
  const updateStmt = db.prepare(
    `UPDATE webhook_runs SET
       status = coalesce(@status, status),
       result = coalesce(@result, result),
       error = coalesce(@error, error),
       delivery = coalesce(@delivery, delivery),
       lease_until = CASE WHEN @delivery IS NULL THEN lease_until ELSE NULL END,
       updated_at = @at
     WHERE run_id = @run_id`,
  );
  // One conditional UPDATE: SQLite serialises writers, so one caller at a time holds the lease.
  const claimStmt = db.prepare(
    `UPDATE webhook_runs SET lease_until = @until, updated_at = @at
     WHERE run_id = @run_id AND delivery = '{"status":"pending"}'
       AND (lease_until IS NULL OR lease_until <= @at)`,
  );
  const remove = db.prepare('DELETE FROM webhook_runs WHERE run_id = ?');
  const prune = db.prepare('DELETE FROM webhook_runs WHERE created_at < ?');

  const read = (row: unknown) =>
    row === undefined ? undefined : toRun(parseRow(runRow, row, 'webhook run'));

  return {
    save: (input) => {
      insert.run({
        run_id: checkId('run id', input.runId),
        route: checkId('route', input.route),
        delivery_id: checkId('delivery id', input.deliveryId),
        session_key: checkId('session key', input.sessionKey),
        event_id: checkId('event id', input.eventId),
        created_at: input.createdAt ?? now(),
      });
    },
    get: (runId) => read(select.get(checkId('run id', runId))),
    findByEvent: (eventId) => read(selectByEvent.get(checkId('event id', eventId))),
    update: (runId, patch) =>
      updateStmt.run({
        run_id: checkId('run id', runId),
        status: orNull(patch.status),
        result: orNull(patch.result?.slice(0, MAX_TEXT_LENGTH)),
        error: orNull(patch.error?.slice(0, MAX_TEXT_LENGTH)),
        delivery: patch.delivery === undefined ? null : JSON.stringify(deliverySchema.parse(patch.delivery)),
        at: now(),
      }).changes === 1,
    claim: (runId, leaseUntil) =>
      claimStmt.run({ run_id: checkId('run id', runId), until: leaseUntil, at: now() }).changes === 1,
    remove: (runId) => remove.run(checkId('run id', runId)).changes === 1,
    prune: (olderThan) => prune.run(olderThan).changes,
  };
}

export function toRun(row: z.infer<typeof runRow>): WebhookRunRecord {
  return {
    runId: row.run_id,
    route: row.route,
    deliveryId: row.delivery_id,
    sessionKey: row.session_key,
    eventId: row.event_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    status: row.status,
    result: orUndefined(row.result),
    error: orUndefined(row.error),
    delivery: parseJsonColumn(deliverySchema, row.delivery, 'webhook run delivery'),
  };
}
