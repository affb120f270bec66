import { type Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { CronJob, CronStore } from '../store/cron-store.js';
import type { CronFireResult, CronScheduler } from './cron-service.js';

export interface BullmqCronSchedulerOptions {
  readonly url: string;
  /** First part of the Redis keys (the gateway's `redis.prefix`). */
  readonly prefix: string;
  readonly store: Pick<CronStore, 'listCronJobs'>;
  readonly fire: (jobId: string, dueAt: number) => Promise<CronFireResult>;
  readonly logger: Logger;
}

const QUEUE_NAME = 'cron';
const dataSchema = z.object({ jobId: z.string().min(1).max(64), dueAt: z.number().optional() });
type RunData = z.infer<typeof dataSchema>;

/**
 * The Redis mode's scheduler: one BullMQ job scheduler per recurring job (a cron pattern in the
 * job's time zone, or an interval) and one delayed job per one-shot, in a queue of their own. BullMQ
 * hands each due job to one worker of all those running; the store's run claim backs that up. A
 * job scheduler keeps one next run in Redis, so runs missed while no worker ran come once.
 */
export function createBullmqCronScheduler(options: BullmqCronSchedulerOptions): CronScheduler {
  const { logger } = options;
  const connect = (role: string, maxRetriesPerRequest: number | null) => {
    const redis = new Redis(options.url, { maxRetriesPerRequest, connectionName: `hermes-cron-${role}` });
    redis.on('error', (error: unknown) =>
      logger.warn({ err: (error as Error).message, role }, 'redis connection error'),
    );
    return redis;
  };
  const client = connect('producer', 3);
  const queue = new Queue<RunData>(QUEUE_NAME, { connection: client, prefix: options.prefix });
  let worker: Worker<RunData> | undefined;
  let workerRedis: Redis | undefined;
  let reconciled: Promise<void> | undefined;
  let closing: Promise<void> | undefined;

  const onceId = (job: CronJob) => `at-${job.id}-${job.scheduleValue}`;

  async function process(bullJob: Job<RunData>): Promise<void> {
    const data = dataSchema.parse(bullJob.data);
    const dueAt = data.dueAt ?? dueOf(bullJob);
    const result = await options.fire(data.jobId, dueAt);
    logger.debug({ jobId: data.jobId, dueAt, result }, 'scheduled task due');
  }

  /**
   * Schedules the store has but Redis lost (or never got) are added; a scheduler that exists
   * already is left alone, so a restart neither moves nor repeats its next run.
   */
  async function reconcile(): Promise<void> {
    const jobs = await options.store.listCronJobs();
    const known = new Set(jobs.map((job) => job.id));
    for (const scheduler of await queue.getJobSchedulers(0, -1)) {
      if (!known.has(scheduler.key)) await queue.removeJobScheduler(scheduler.key);
    }
    for (const job of jobs) {
      if (job.state !== 'active') await unschedule(job.id);
      else if (job.scheduleKind === 'at' || (await queue.getJobScheduler(job.id)) === undefined)
        await upsert(job);
    }
  }

  async function upsert(job: CronJob): Promise<void> {
    const template = { name: 'run', data: { jobId: job.id } };
    if (job.scheduleKind === 'cron') {
      await queue.upsertJobScheduler(job.id, { pattern: job.scheduleValue, tz: job.timezone }, template);
    } else if (job.scheduleKind === 'every') {
      await queue.upsertJobScheduler(job.id, { every: Number(job.scheduleValue) }, template);
    } else {
      const at = Number(job.scheduleValue);
      await queue.add(
        'run',
        { jobId: job.id, dueAt: at },
        {
          jobId: onceId(job),
          delay: Math.max(0, at - Date.now()),
          removeOnComplete: true,
          removeOnFail: 100,
        },
      );
    }
  }

  async function unschedule(jobId: string, once?: string): Promise<void> {
    await queue.removeJobScheduler(jobId);
    if (once !== undefined) await queue.remove(once).catch(() => 0);
  }

  return {
    kind: 'bullmq',
    async start({ work }) {
      if (closing !== undefined) return;
      reconciled ??= reconcile();
      await reconciled;
      if (!work || worker !== undefined || closing !== undefined) return;
      workerRedis = connect('worker', null);
      worker = new Worker<RunData>(QUEUE_NAME, process, {
        connection: workerRedis,
        prefix: options.prefix,
        concurrency: 4,
      });
      worker.on('error', (error: Error) => logger.warn({ err: error.message }, 'cron worker error'));
      worker.on('failed', (job, error: Error) =>
        logger.error({ jobId: job?.data.jobId, err: error.message }, 'scheduled task run failed to start'),
      );
    },
    async changed(job) {
      if (job.state === 'active') await upsert(job);
      else await unschedule(job.id, job.scheduleKind === 'at' ? onceId(job) : undefined);
    },
    async removed(jobId) {
      await queue.removeJobScheduler(jobId);
      const waiting = await queue.getJobs(['delayed', 'waiting'], 0, 1000);
      for (const entry of waiting)
        if (entry.data.jobId === jobId) await entry.remove().catch(() => undefined);
    },
    close() {
      closing ??= (async () => {
        await worker?.close().catch((error: unknown) => logger.warn({ err: error }, 'cron worker close'));
        await queue.close().catch((error: unknown) => logger.warn({ err: error }, 'cron queue close'));
        for (const redis of [workerRedis, client]) {
          if (redis === undefined) continue;
          await redis.quit().catch(() => redis.disconnect());
        }
      })();
      return closing;
    },
  };
}

/** The time a job scheduler's job was due: its id ends in it (`repeat:<scheduler>:<ms>`). */
function dueOf(job: Job<RunData>): number {
  const last = Number(job.id?.split(':').at(-1));
  return Number.isFinite(last) && last > 0 ? last : job.timestamp + (job.opts.delay ?? 0);
}
