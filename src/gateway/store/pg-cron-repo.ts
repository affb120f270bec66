import { HermesError } from '../../errors/hermes-error.js';
import type { CronJob, CronJobInput, CronJobPatch, ListCronJobsOptions } from './cron-store.js';
import type { PgPool } from './pg-database.js';
import { pgText } from './pg-values.js';
import { jobRow, MAX_TEXT, RUN_RETENTION_MS, toJob } from './sqlite-cron-repo.js';
import { parseRow, parseRows } from './sqlite-rows.js';
import { checkId } from './store-checks.js';

export interface PgCronRepo {
  create(input: CronJobInput): Promise<CronJob>;
  get(id: string): Promise<CronJob | undefined>;
  list(options: ListCronJobsOptions): Promise<CronJob[]>;
  update(id: string, patch: CronJobPatch): Promise<CronJob | undefined>;
  delete(id: string): Promise<boolean>;
  claimRun(jobId: string, dueAt: number): Promise<boolean>;
}

/** PostgreSQL's code for a unique or primary key violation. */
const UNIQUE_VIOLATION = '23505';

/** Scheduled tasks and their run claims in PostgreSQL (same rules as the SQLite repo). */
export function createPgCronRepo(pool: PgPool, now: () => number): PgCronRepo {
  const get = async (id: string): Promise<CronJob | undefined> => {
    const result = await pool.query('SELECT * FROM cron_jobs WHERE id = $1', [id]);
    const row: unknown = result.rows[0];
    return row === undefined ? undefined : toJob(parseRow(jobRow, row, 'cron job'));
  };
  const optionalText = (value: string | undefined) => (value === undefined ? null : pgText(value));

  return {
    create: async (input) => {
      const createdAt = input.createdAt ?? now();
      try {
        await pool.query(
          `INSERT INTO cron_jobs (id, platform, chat_type, chat_id, thread_id, session_key, created_by,
             created_by_name, name, prompt, schedule, schedule_kind, schedule_value, timezone, deliver, state,
             next_run_at, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'active', $16, $17, $17)`,
          [
            checkId('job id', input.id, 64),
            checkId('platform', input.chat.platform, 64),
            checkId('chat type', input.chat.chatType, 32),
            checkId('chat id', input.chat.chatId, 512),
            optionalText(input.chat.threadId),
            checkId('session key', input.sessionKey, 512),
            checkId('user id', input.createdBy, 512),
            optionalText(input.createdByName),
            optionalText(input.name),
            pgText(checkId('prompt', input.prompt, MAX_TEXT)),
            checkId('schedule', input.schedule, 200),
            input.scheduleKind,
            checkId('schedule value', input.scheduleValue, 200),
            checkId('time zone', input.timezone, 64),
            input.deliver,
            input.nextRunAt ?? null,
            createdAt,
          ],
        );
      } catch (error) {
        if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
          throw new HermesError('store_failed', `cron job ${input.id} exists already`, { cause: error });
        }
        throw error;
      }
      const job = await get(input.id);
      if (job === undefined) throw new HermesError('store_failed', `cron job ${input.id} vanished`);
      return job;
    },
    get,
    list: async (options) => {
      const result =
        options.chat === undefined
          ? await pool.query('SELECT * FROM cron_jobs ORDER BY created_at, id')
          : await pool.query(
              `SELECT * FROM cron_jobs WHERE platform = $1 AND chat_id = $2 AND coalesce(thread_id, '') = $3
               ORDER BY created_at, id`,
              [options.chat.platform, options.chat.chatId, options.chat.threadId ?? ''],
            );
      const jobs = parseRows(jobRow, result.rows, 'cron job').map(toJob);
      return options.failedOnly === true ? jobs.filter((job) => job.delivery?.status === 'failed') : jobs;
    },
    update: async (id, patch) => {
      const sets: string[] = [];
      const values: unknown[] = [id];
      const set = (column: string, value: unknown) => {
        values.push(value);
        sets.push(`${column} = $${values.length}`);
      };
      if (patch.state !== undefined) set('state', patch.state);
      if (patch.nextRunAt !== undefined) set('next_run_at', patch.nextRunAt);
      if (patch.lastRunAt !== undefined) set('last_run_at', patch.lastRunAt);
      if (patch.lastDueAt !== undefined) set('last_due_at', patch.lastDueAt);
      if (patch.addRuns !== undefined) {
        values.push(patch.addRuns);
        sets.push(`run_count = run_count + $${values.length}`);
      }
      if (patch.delivery !== undefined) {
        set('delivery_status', patch.delivery?.status ?? null);
        const error = patch.delivery?.error?.slice(0, 1_000);
        set('delivery_error', error === undefined ? null : pgText(error));
        set('delivery_at', patch.delivery?.at ?? null);
      }
      set('updated_at', now());
      const result = await pool.query(`UPDATE cron_jobs SET ${sets.join(', ')} WHERE id = $1`, values);
      return result.rowCount === 0 ? undefined : get(id);
    },
    delete: async (id) => {
      await pool.query('DELETE FROM cron_runs WHERE job_id = $1', [id]);
      const result = await pool.query('DELETE FROM cron_jobs WHERE id = $1', [id]);
      return (result.rowCount ?? 0) > 0;
    },
    // The primary key (job, due time) makes the first INSERT win, whichever process asks.
    claimRun: async (jobId, dueAt) => {
      const at = now();
      await pool.query('DELETE FROM cron_runs WHERE job_id = $1 AND claimed_at < $2', [
        jobId,
        at - RUN_RETENTION_MS,
      ]);
      const result = await pool.query(
        'INSERT INTO cron_runs (job_id, due_at, claimed_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [jobId, dueAt, at],
      );
      return result.rowCount === 1;
    },
  };
}
