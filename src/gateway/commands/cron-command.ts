import { HermesError } from '../../errors/hermes-error.js';
import { formatTime } from '../cron/cron-schedule.js';
import type { CronService } from '../cron/cron-service.js';
import { describeCronJob } from '../cron/describe-cron-job.js';
import type { CronChat } from '../store/cron-store.js';
import type { CommandImpl, CommandRun } from './command-context.js';

/**
 * `/cron`: the scheduled tasks of this chat.
 *
 *   /cron [list]
 *   /cron add [--home] [--tz <zone>] <schedule> | <prompt>
 *   /cron add every 2h <prompt>    /cron add in 30m <prompt>    /cron add at 18:30 <prompt>
 *   /cron add 0 9 * * 1-5 <prompt>   (five cron fields, then the prompt)
 *   /cron pause|resume|delete <id>
 */
export const cronCommand: CommandImpl = async (run) => {
  const cron = run.deps.cron;
  if (cron === undefined) return ['Scheduled tasks are not available in this gateway.'];
  const trimmed = run.args.trim();
  const [action = '', ...rest] = trimmed.split(/\s+/).filter(Boolean);
  const verb = action.toLowerCase();
  const chat = chatOf(run);
  try {
    switch (verb) {
      case '':
      case 'list':
        return [await list(run, cron, chat)];
      case 'add':
      case 'create':
        return [await add(run, cron, chat, trimmed.slice(action.length).trim())];
      case 'pause':
      case 'resume':
      case 'delete':
      case 'remove':
      case 'rm': {
        const [id, ...extra] = rest;
        if (id === undefined || extra.length > 0) return [usage(run.p)];
        if (verb === 'pause') return [`Paused ${(await cron.pause(chat, id)).id}.`];
        if (verb === 'resume') {
          const job = await cron.resume(chat, id);
          return [
            `Resumed ${job.id}; next run ${job.nextRunAt === undefined ? '—' : formatTime(job.nextRunAt, job.timezone)}.`,
          ];
        }
        return [`Deleted ${(await cron.remove(chat, id)).id}.`];
      }
      default:
        return [usage(run.p)];
    }
  } catch (error) {
    if (error instanceof HermesError && (error.code === 'usage' || error.code === 'cron_job_unknown')) {
      return [`Could not do that: ${error.message}.`];
    }
    throw error;
  }
};

function usage(p: string): string {
  return [
    `Usage: ${p}cron — list this chat's scheduled tasks`,
    `${p}cron add <schedule> | <prompt> — schedule: "0 9 * * *", "every 2h", "in 30m", "at 18:30" or "at 2026-12-24 09:00"; --home delivers to the home channel, --tz Europe/Berlin sets the time zone`,
    `${p}cron pause|resume|delete <id>`,
  ].join('\n');
}

function chatOf(run: CommandRun): CronChat {
  const { chat } = run.input;
  return {
    platform: run.input.platform,
    chatType: chat.chatType,
    chatId: chat.chatId,
    ...(chat.threadId !== undefined ? { threadId: chat.threadId } : {}),
  };
}

async function list(run: CommandRun, cron: CronService, chat: CronChat): Promise<string> {
  const jobs = await cron.list(chat);
  if (jobs.length === 0) {
    return `No scheduled tasks in this chat. ${run.p}cron add every 1d | <what to do> schedules one.`;
  }
  return [`Scheduled tasks of this chat (${jobs.length}):`, ...jobs.map(describeCronJob)].join('\n');
}

async function add(run: CommandRun, cron: CronService, chat: CronChat, text: string): Promise<string> {
  let rest = text;
  let deliver: 'origin' | 'home' = 'origin';
  let timezone: string | undefined;
  for (;;) {
    const home = /^--home(?:\s+|$)/i.exec(rest);
    const tz = /^--tz\s+(\S+)\s*/i.exec(rest);
    if (home !== null) {
      deliver = 'home';
      rest = rest.slice(home[0].length);
    } else if (tz !== null) {
      timezone = tz[1];
      rest = rest.slice(tz[0].length);
    } else break;
  }
  const split = splitSchedule(rest);
  if (split === undefined) return usage(run.p);
  const job = await cron.create({
    chat,
    sessionKey: run.input.sessionKey,
    userId: run.input.sender.userId,
    userName: run.input.sender.userName,
    schedule: split.schedule,
    prompt: split.prompt,
    timezone,
    deliver,
  });
  const next = job.nextRunAt === undefined ? '—' : formatTime(job.nextRunAt, job.timezone);
  return `Scheduled ${job.id}: ${job.schedule} (${job.timezone}), ${deliver === 'home' ? 'to the home channel' : 'to this chat'}; first run ${next}. ${run.p}cron pause ${job.id} pauses it.`;
}

/** `<schedule> | <prompt>`, or a schedule of known shape followed by the prompt. */
function splitSchedule(text: string): { schedule: string; prompt: string } | undefined {
  const bar = text.indexOf('|');
  if (bar >= 0) {
    const schedule = text.slice(0, bar).trim();
    const prompt = text.slice(bar + 1).trim();
    return schedule === '' || prompt === '' ? undefined : { schedule, prompt };
  }
  const words = text.split(/\s+/).filter(Boolean);
  const first = words[0]?.toLowerCase() ?? '';
  let take: number;
  if (first === 'every' || first === 'in') take = /^\d+$/.test(words[1] ?? '') ? 3 : 2;
  else if (first === 'at') take = /^\d{4}-\d{2}-\d{2}$/.test(words[1] ?? '') ? 3 : 2;
  else if (first.startsWith('@')) take = 1;
  else take = 5;
  if (words.length <= take) return undefined;
  return { schedule: words.slice(0, take).join(' '), prompt: words.slice(take).join(' ') };
}
