import type { PgPool } from './pg-database.js';
import { pgText } from './pg-values.js';
import { parseRow } from './sqlite-rows.js';
import { deliverySchema, MAX_TEXT_LENGTH, runRow, toRun } from './sqlite-webhook-run-repo.js';
import { checkId } from './store-checks.js';
import type { WebhookRunInput, WebhookRunPatch, WebhookRunRecord } from './webhook-run-store.js';

export interface PgWebhookRunRepo {
  save(input: WebhookRunInput): Promise<void>;
  get(runId: string): Promise<WebhookRunRecord | undefined>;
  findByEvent(eventId: string): Promise<WebhookRunRecord | undefined>;
  update(runId: string, patch: WebhookRunPatch): Promise<boolean>;
  claim(runId: string, leaseUntil: number): Promise<boolean>;
  remove(runId: string): Promise<boolean>;
  prune(olderThan: number): Promise<number>;
}

/** Webhook run records in PostgreSQL (same rules as the SQLite repo). */
export function createPgWebhookRunRepo(pool: PgPool, now: () => number): PgWebhookRunRepo {
  const one = async (sql: string, params: unknown[]) => {
    const result = await pool.query(sql, params);
    const row: unknown = result.rows[0];
    return row === undefined ? undefined : toRun(parseRow(runRow, row, 'webhook run'));
  };
  return {
    save: async (input) => {
      const createdAt = input.createdAt ?? now();
      await pool.query(
        `INSERT INTO webhook_runs (run_id, route, delivery_id, session_key, event_id, created_at,
           updated_at, status, delivery)
         VALUES ($1, $2, $3, $4, $5, $6, $6, 'queued', '{"status":"pending"}')
         ON CONFLICT (run_id) DO NOTHING`,
        [
          checkId('run id', input.runId),
          checkId('route', input.route),
          checkId('delivery id', input.deliveryId),
          checkId('session key', input.sessionKey),
          checkId('event id', input.eventId),
          createdAt,
        ],
      );
    },
    get: (runId) => one('SELECT * FROM webhook_runs WHERE run_id = $1', [checkId('run id', runId)]),
    findByEvent: (eventId) =>
      one('SELECT * FROM webhook_runs WHERE event_id = $1 ORDER BY created_at DESC, seq DESC LIMIT 1', [
        checkId('event id', eventId),
      ]),
    update: async (runId, patch) => {
      const delivery =
        patch.delivery === undefined ? null : JSON.stringify(deliverySchema.parse(patch.delivery));
      const result = await pool.query(
        `UPDATE webhook_runs SET
           status = coalesce($2, status),
           result = coalesce($3, result),
           error = coalesce($4, error),
           delivery = coalesce($5, delivery),
           lease_until = CASE WHEN $5::text IS NULL THEN lease_until ELSE NULL END,
           updated_at = $6
         WHERE run_id = $1`,
        [
          checkId('run id', runId),
          patch.status ?? null,
          patch.result === undefined ? null : pgText(patch.result.slice(0, MAX_TEXT_LENGTH)),
          patch.error === undefined ? null : pgText(patch.error.slice(0, MAX_TEXT_LENGTH)),
          delivery === null ? null : pgText(delivery),
          now(),
        ],
      );
      return result.rowCount === 1;
    },
    // One conditional UPDATE: the row lock lets exactly one caller take a free or expired lease.
    claim: async (runId, leaseUntil) => {
      const at = now();
      const result = await pool.query(
        `UPDATE webhook_runs SET lease_until = $2, updated_at = $3
         WHERE run_id = $1 AND delivery = '{"status":"pending"}'
           AND (lease_until IS NULL OR lease_until <= $3)`,
        [checkId('run id', runId), leaseUntil, at],
      );
      return result.rowCount === 1;
    },
    remove: async (runId) => {
      const result = await pool.query('DELETE FROM webhook_runs WHERE run_id = $1', [
        checkId('run id', runId),
      ]);
      return result.rowCount === 1;
    },
    prune: async (olderThan) => {
      const result = await pool.query('DELETE FROM webhook_runs WHERE created_at < $1', [olderThan]);
      return result.rowCount ?? 0;
    },
  };
}
