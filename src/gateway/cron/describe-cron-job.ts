import type { CronJob } from '../store/cron-store.js';
import { formatTime } from './cron-schedule.js';

/** One job for `/cron list` and `doctor`: schedule, state, next run, and a failed delivery's reason. */
export function describeCronJob(job: CronJob): string {
  const title = job.name === undefined ? job.id : `${job.id} "${job.name}"`;
  const where = job.deliver === 'home' ? 'to the home channel' : 'here';
  const state =
    job.state === 'active'
      ? job.nextRunAt === undefined
        ? 'active'
        : `next ${formatTime(job.nextRunAt, job.timezone)}`
      : job.state === 'paused'
        ? 'paused'
        : 'done (was due once)';
  const prompt = job.prompt.length > 80 ? `${job.prompt.slice(0, 79)}…` : job.prompt;
  const lines = [`• ${title} — ${job.schedule} (${job.timezone}), ${where} — ${state}`, `  ${prompt}`];
  if (job.lastRunAt !== undefined) {
    const delivery = job.delivery;
    const outcome =
      delivery === undefined
        ? ''
        : delivery.status === 'failed'
          ? ` — ⚠️ FAILED: ${delivery.error ?? 'unknown reason'}`
          : delivery.status === 'pending'
            ? ' — answer pending'
            : ' — delivered';
    lines.push(`  last run ${formatTime(job.lastRunAt, job.timezone)}, ${job.runCount} run(s)${outcome}`);
  }
  return lines.join('\n');
}
