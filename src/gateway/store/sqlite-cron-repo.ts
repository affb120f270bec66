import type { Database } from 'better-sqlite3';
import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import type { CronJob, CronJobInput, CronJobPatch, ListCronJobsOptions } from './cron-store.js';
import { orNull, orUndefined, parseRow, parseRows } from './sqlite-rows.js';
import { checkId } from './store-checks.js';

/** A `cron_jobs` row, the same in SQLite and PostgreSQL. */
export const jobRow = z.object({
  id: z.string(),
  platform: z.string(),
  chat_type: z.string(),
  chat_id: z.string(),
  thread_id: z.string().nullable(),
  session_key: z.string(),
  created_by: z.string(),
  created_by_name: z.string().nullable(),
  name: z.string().nullable(),
  prompt: z.string(),
  schedule: z.string(),
  schedule_kind: z.enum(['cron', 'every', 'at']),
  schedule_value: z.string(),
  timezone: z.string(),
  deliver: z.enum(['origin', 'home']),
  state: z.enum(['active', 'paused', 'done']),
  next_run_at: z.number().nullable(),
  last_run_at: z.number().nullable(),
  last_due_at: z.number().nullable(),
  run_count: z.number(),
  delivery_status: z.enum(['pending', 'delivered', 'failed']).nullable(),
  delivery_error: z.string().nullable(),
  delivery_at: z.number().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
});

/** Run claims older than this are forgotten (a due time is never claimed again that late). */
export const RUN_RETENTION_MS = 7 * 24 * 3_600_000;
export const MAX_TEXT = 20_000;

export interface CronRepo {
  create(input: CronJobInput): CronJob;
  get(id: string): CronJob | undefined;
  list(options: ListCronJobsOptions): CronJob[];
  update(id: string, patch: CronJobPatch): CronJob | undefined;
  delete(id: string): boolean;
  claimRun(jobId: string, dueAt: number): boolean;
}

/** Scheduled tasks and their run claims (see CronStore). */
export function createCronRepo(db: Database, now: () => number): CronRepo {
  const insert = db.prepare(
    `INSERT INTO cron_jobs (id, platform, chat_type, chat_id, thread_id, session_key, created_by,
       created_by_name, name, prompt, schedule, schedule_kind, schedule_value, timezone, deliver, state,
       next_run_at, created_at, updated_at)
     VALUES (@id, @platform, @chat_type, @chat_id, @thread_id, @session_key, @created_by,
       @created_by_name, @name, @prompt, @schedule, @schedule_kind, @schedule_value, @timezone, @deliver,
       'active', @next_run_at, @created_at, @created_at)`,
  );
  const select = db.prepare('SELECT * FROM cron_jobs WHERE id = ?');
  const selectAll = db.prepare('SELECT * FROM cron_jobs ORDER BY created_at, id');
  const selectChat = db.prepare(
    `SELECT * FROM cron_jobs WHERE platform = ? AND chat_id = ? AND coalesce(thread_id, '') = ?
     ORDER BY created_at, id`,
  );
  const remove = db.prepare('DELETE FROM cron_jobs WHERE id = ?');
  const removeRuns = db.prepare('DELETE FROM cron_runs WHERE job_id = ?');
  const claim = db.prepare('INSERT OR IGNORE INTO cron_runs (job_id, due_at, claimed_at) VALUES (?, ?, ?)');
  const pruneRuns = db.prepare('DELETE FROM cron_runs WHERE job_id = ? AND claimed_at < ?');

  const get = (id: string): CronJob | undefined => {
    const row = select.get(id);
    return row === undefined ? undefined : toJob(parseRow(jobRow, row, 'cron job'));
  };

  return {
    create(input) {
      const createdAt = input.createdAt ?? now();
      try {
        insert.run({
          id: checkId('job id', input.id, 64),
          platform: checkId('platform', input.chat.platform, 64),
          chat_type: checkId('chat type', input.chat.chatType, 32),
          chat_id: checkId('chat id', input.chat.chatId, 512),
          thread_id: orNull(input.chat.threadId),
          session_key: checkId('session key', input.sessionKey, 512),
          created_by: checkId('user id', input.createdBy, 512),
          created_by_name: orNull(input.createdByName),
          name: orNull(input.name),
          prompt: checkId('prompt', input.prompt, MAX_TEXT),
          schedule: checkId('schedule', input.schedule, 200),
          schedule_kind: input.scheduleKind,
          schedule_value: checkId('schedule value', input.scheduleValue, 200),
          timezone: checkId('time zone', input.timezone, 64),
          deliver: input.deliver,
          next_run_at: orNull(input.nextRunAt),
          created_at: createdAt,
        });
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
          throw new HermesError('store_failed', `cron job ${input.id} exists already`, { cause: error });
        }
        throw error;
      }
      return get(input.id)!;
    },
    get,
    list(options) {
      const rows =
        options.chat === undefined
          ? selectAll.all()
          : selectChat.all(options.chat.platform, options.chat.chatId, options.chat.threadId ?? '');
      const jobs = parseRows(jobRow, rows, 'cron job').map(toJob);
      return options.failedOnly === true ? jobs.filter((job) => job.delivery?.status === 'failed') : jobs;
    },
    update(id, patch) {
      const sets: string[] = [];
      const values: Record<string, unknown> = { id, updated_at: now() };
      const set = (column: string, value: unknown) => {
        sets.push(`${column} = @${column}`);
        values[column] = value;
      };
      if (patch.state !== undefined) set('state', patch.state);
      if (patch.nextRunAt !== undefined) set('next_run_at', patch.nextRunAt);
      if (patch.lastRunAt !== undefined) set('last_run_at', patch.lastRunAt);
      if (patch.lastDueAt !== undefined) set('last_due_at', patch.lastDueAt);
      if (patch.addRuns !== undefined) {
        sets.push('run_count = run_count + @add_runs');
        values['add_runs'] = patch.addRuns;
      }
      if (patch.delivery !== undefined) {
        set('delivery_status', patch.delivery?.status ?? null);
        set('delivery_error', patch.delivery?.error?.slice(0, 1_000) ?? null);
        set('delivery_at', patch.delivery?.at ?? null);
      }
      sets.push('updated_at = @updated_at');
      const result = db.prepare(`UPDATE cron_jobs SET ${sets.join(', ')} WHERE id = @id`).run(values);
      return result.changes === 0 ? undefined : get(id);
    },
    delete(id) {
      removeRuns.run(id);
      return remove.run(id).changes > 0;
    },
    claimRun(jobId, dueAt) {
      const at = now();
      pruneRuns.run(jobId, at - RUN_RETENTION_MS);
      return claim.run(jobId, dueAt, at).changes > 0;
    },
  };
}

export function toJob(row: z.infer<typeof jobRow>): CronJob {
  return {
    id: row.id,
    chat: {
      platform: row.platform,
      chatType: row.chat_type,
      chatId: row.chat_id,
      threadId: orUndefined(row.thread_id),
    },
    sessionKey: row.session_key,
    createdBy: row.created_by,
    createdByName: orUndefined(row.created_by_name),
    name: orUndefined(row.name),
    prompt: row.prompt,
    schedule: row.schedule,
    scheduleKind: row.schedule_kind,
    scheduleValue: row.schedule_value,
    timezone: row.timezone,
    deliver: row.deliver,
    state: row.state,
    nextRunAt: orUndefined(row.next_run_at),
    lastRunAt: orUndefined(row.last_run_at),
    lastDueAt: orUndefined(row.last_due_at),
    runCount: row.run_count,
    delivery:
      row.delivery_status === null
        ? undefined
        : {
            status: row.delivery_status,
            error: orUndefined(row.delivery_error),
            at: row.delivery_at ?? row.updated_at,
          },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
