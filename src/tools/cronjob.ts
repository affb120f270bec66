import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import { defineTool } from '../registry/define-tool.js';
import type { CheckResult, ToolContext } from '../registry/tool-types.js';
import type { CronjobChat, CronjobView } from './cronjob/cronjob-services.js';

const parameters = z.object({
  action: z
    .enum(['create', 'list', 'pause', 'resume', 'remove'])
    .describe('create a task, list the tasks of this chat, or pause/resume/remove one by job_id.'),
  schedule: z
    .string()
    .max(200)
    .optional()
    .describe(
      'create: when it runs. A cron expression ("0 9 * * *" = 09:00 daily, "0 9 * * 1-5" = weekdays), ' +
        '"every 30m" / "every 2h" / "every 1d" (first run right away), "in 20m" (once), "at 18:30" or "at 2026-12-24 09:00" (once).',
    ),
  prompt: z
    .string()
    .max(10_000)
    .optional()
    .describe(
      'create: what to do at each run, self-contained (the run starts a fresh conversation and nobody answers questions during it).',
    ),
  name: z.string().max(80).optional().describe('create: a short name for the task.'),
  timezone: z
    .string()
    .max(64)
    .optional()
    .describe("create: IANA time zone the schedule is read in, e.g. Europe/Berlin (default: the gateway's)."),
  deliver: z
    .enum(['origin', 'home'])
    .optional()
    .describe(
      "create: where results go — origin (this chat, default) or home (the platform's home channel set with /sethome).",
    ),
  job_id: z.string().max(64).optional().describe('pause/resume/remove: the task id from list or create.'),
});

function view(job: CronjobView): Record<string, unknown> {
  return {
    job_id: job.id,
    ...(job.name !== undefined ? { name: job.name } : {}),
    schedule: job.schedule,
    timezone: job.timezone,
    deliver: job.deliver,
    state: job.state,
    prompt: job.prompt,
    next_run_at: job.nextRunAt === undefined ? null : new Date(job.nextRunAt).toISOString(),
    last_run_at: job.lastRunAt === undefined ? null : new Date(job.lastRunAt).toISOString(),
    runs: job.runCount,
    ...(job.delivery !== undefined
      ? {
          last_delivery: job.delivery.status,
          ...(job.delivery.error !== undefined ? { last_delivery_error: job.delivery.error } : {}),
        }
      : {}),
  };
}

function chatOf(ctx: ToolContext): CronjobChat {
  if (ctx.platform === undefined || ctx.chat === undefined) {
    throw new HermesError('usage', 'Scheduled tasks can only be managed from a chat.');
  }
  return {
    platform: ctx.platform,
    chatType: ctx.chat.chatType,
    chatId: ctx.chat.chatId,
    ...(ctx.chat.threadId !== undefined ? { threadId: ctx.chat.threadId } : {}),
  };
}

export const cronjobTool = defineTool({
  name: 'cronjob',
  toolset: 'cronjob',
  emoji: '⏰',
  description:
    'Scheduled tasks of this chat: prompts that run by themselves on a schedule, each run an unattended turn whose answer is sent to this chat ' +
    '(or the home channel). Use it when the user asks for something recurring or later ("every morning", "remind me in 2 hours"). ' +
    'action=create needs schedule and prompt; list shows the tasks with their next run and how the last delivery went; ' +
    'pause, resume and remove take job_id. Write the prompt so it stands alone: a run does not see this conversation.',
  parameters,
  checkFn: (services, scope): CheckResult => {
    if (services.cronjobs === undefined) return { ok: false, reason: 'scheduled tasks not configured' };
    return scope?.unattended === true
      ? { ok: false, reason: 'not offered to unattended sessions' }
      : { ok: true };
  },
  handler: async (args, ctx) => {
    const service = ctx.services.cronjobs;
    if (service === undefined)
      throw new HermesError('usage', 'Scheduled tasks are not available in this gateway.');
    const chat = chatOf(ctx);
    switch (args.action) {
      case 'list': {
        const jobs = await service.list(chat);
        return { jobs: jobs.map(view), count: jobs.length };
      }
      case 'create': {
        if (args.schedule === undefined || args.prompt === undefined) {
          throw new HermesError('usage', 'create needs schedule and prompt.');
        }
        if (ctx.userId === undefined) throw new HermesError('usage', 'Scheduled tasks need a known user.');
        const job = await service.create({
          chat,
          sessionKey: ctx.sessionKey,
          userId: ctx.userId,
          userName: ctx.chat?.userName,
          schedule: args.schedule,
          prompt: args.prompt,
          name: args.name,
          timezone: args.timezone,
          deliver: args.deliver,
        });
        return { created: view(job) };
      }
      default: {
        if (args.job_id === undefined) throw new HermesError('usage', `${args.action} needs job_id.`);
        const job =
          args.action === 'pause'
            ? await service.pause(chat, args.job_id)
            : args.action === 'resume'
              ? await service.resume(chat, args.job_id)
              : await service.remove(chat, args.job_id);
        return {
          [args.action === 'remove' ? 'removed' : args.action === 'pause' ? 'paused' : 'resumed']: view(job),
        };
      }
    }
  },
});
