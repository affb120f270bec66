import type { Logger } from 'pino';
import type { CronStore } from '../store/cron-store.js';
import type { CronFireResult, CronScheduler } from './cron-service.js';

export interface LocalCronSchedulerOptions {
  readonly store: Pick<CronStore, 'listCronJobs'>;
  readonly fire: (jobId: string, dueAt: number) => Promise<CronFireResult>;
  readonly logger: Logger;
  readonly now: () => number;
  /** Between looks at the store for due jobs, ms. Default 1000. */
  readonly tickMs?: number;
}

export interface LocalCronScheduler extends CronScheduler {
  /** One look for due jobs (what the timer does); resolves when their runs are submitted. */
  tick(): Promise<void>;
}

/**
 * The embedded mode's scheduler: a timer in this process that runs every active job whose next
 * run time has come, once (the job's next time is then counted from now, so runs missed while
 * the gateway was down run once at start, not once each). The store is the only schedule: there
 * is nothing to keep in step, and the store's run claim keeps a run from going twice.
 */
export function createLocalCronScheduler(options: LocalCronSchedulerOptions): LocalCronScheduler {
  const { store, logger } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let closed = false;

  async function pass(): Promise<void> {
    const now = options.now();
    for (const job of await store.listCronJobs()) {
      if (closed) return;
      if (job.state !== 'active' || job.nextRunAt === undefined || job.nextRunAt > now) continue;
      try {
        await options.fire(job.id, job.nextRunAt);
      } catch (error) {
        logger.error({ jobId: job.id, err: (error as Error).message }, 'scheduled task run failed to start');
      }
    }
  }

  const tick = (): Promise<void> => {
    running ??= pass()
      .catch((error: unknown) =>
        logger.warn({ err: (error as Error).message }, 'scheduled tasks check failed'),
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  return {
    kind: 'embedded',
    tick,
    async start({ work }) {
      if (!work || timer !== undefined || closed) return;
      timer = setInterval(() => void tick(), options.tickMs ?? 1_000);
      timer.unref();
      await tick();
    },
    async changed() {
      // The store is the schedule; the next tick sees the change.
    },
    async removed() {},
    async close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      await running;
    },
  };
}
