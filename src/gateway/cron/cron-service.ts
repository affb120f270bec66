import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { HermesError } from '../../errors/hermes-error.js';
import type { JsonValue } from '../../lib/is-json-value.js';
import type { InboxItem, SubmitResult } from '../queue/turn-queue.js';
import { buildSessionKey } from '../session-key.js';
import type { CronChat, CronDeliverTo, CronJob, CronStore } from '../store/cron-store.js';
import type { HomeChannelStore } from '../store/home-channel-store.js';
import type { SessionStore } from '../store/session-store.js';
import type { TurnOrigin } from '../turn/turn-origin.js';
import { catchUpGapMs, checkTimezone, nextRunAfter, parseSchedule } from './cron-schedule.js';

/** Keeps the scheduler (BullMQ job schedulers or the in-process timer) in step with the store. */
export interface CronScheduler {
  readonly kind: 'embedded' | 'bullmq';
  /**
   * Brings the schedule up (once) and, with `work`, starts firing due jobs; runs missed while
   * nobody ran are fired once. Without `work` (a process with no workers) it only keeps schedules.
   */
  start(options: { readonly work: boolean }): Promise<void>;
  /** A job was created, paused, resumed or finished. */
  changed(job: CronJob): Promise<void>;
  removed(jobId: string): Promise<void>;
  close(): Promise<void>;
}

export interface CronSettings {
  /** Default time zone of new jobs (IANA). */
  readonly timezone: string;
  readonly minIntervalMs: number;
  readonly maxJobsPerChat: number;
}

export interface CronServiceDeps {
  readonly store: CronStore &
    Pick<HomeChannelStore, 'getHomeChannel'> &
    Pick<SessionStore, 'getSession' | 'rotateSession' | 'updateSession'>;
  /** The turn queue's submit: a run is an unattended turn of the job's own session. */
  readonly submit: (item: InboxItem) => Promise<SubmitResult>;
  readonly settings: CronSettings;
  readonly logger: Logger;
  readonly now: () => number;
  /** The toolset preset chats of a platform use (as ingress picks it); default `hermes-<platform>`. */
  readonly presetOf?: (platform: string) => string;
  /** A platform's configured home channel (`*_HOME_CHANNEL`), used until /sethome picks one. */
  readonly configuredHome?: (
    platform: string,
  ) => { readonly chatId: string; readonly threadId?: string } | undefined;
}

/** The `cron:` settings of a config, as the service reads them. */
export function cronSettingsOf(config: {
  readonly cron: {
    readonly timezone?: string | undefined;
    readonly min_interval_seconds: number;
    readonly max_jobs_per_chat: number;
  };
}): CronSettings {
  return {
    timezone: config.cron.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    minIntervalMs: config.cron.min_interval_seconds * 1000,
    maxJobsPerChat: config.cron.max_jobs_per_chat,
  };
}

/** What someone asks for when they schedule a task. */
export interface CronCreateRequest {
  readonly chat: CronChat;
  readonly sessionKey: string;
  readonly userId: string;
  readonly userName?: string | undefined;
  readonly schedule: string;
  readonly prompt: string;
  readonly name?: string | undefined;
  readonly timezone?: string | undefined;
  readonly deliver?: CronDeliverTo | undefined;
}

/** What a due run came to. */
export type CronFireResult =
  | 'submitted'
  | 'duplicate'
  | 'inactive'
  | 'not_due'
  | 'catch_up_skipped'
  | 'undeliverable';

/** How much earlier than the stored next run a scheduler's due time may be and still count. */
const DUE_TOLERANCE_MS = 1_000;

export interface CronService {
  create(request: CronCreateRequest): Promise<CronJob>;
  /** The jobs of a chat, oldest first. */
  list(chat: CronChat): Promise<CronJob[]>;
  pause(chat: CronChat, id: string): Promise<CronJob>;
  resume(chat: CronChat, id: string): Promise<CronJob>;
  remove(chat: CronChat, id: string): Promise<CronJob>;
  /** Runs a job due at `dueAt` (called by the scheduler; at most once per job and due time). */
  fire(jobId: string, dueAt: number): Promise<CronFireResult>;
  /** Records how the answer of a scheduled run was delivered (from the chat platform's side). */
  noteDelivery(report: {
    readonly sessionKey: string;
    readonly kind: 'final' | 'failed';
    readonly delivered: boolean;
    readonly error?: string | undefined;
    readonly failure?: string | undefined;
  }): Promise<void>;
  /** Jobs whose last delivery failed, for doctor. */
  failures(): Promise<CronJob[]>;
  /**
   * Runs again, once, the last due run of each job of `platform` that could not run because its
   * target could not be resolved (no home channel): called when one is set (`/sethome`). Returns
   * how many were submitted. Once per due time, whichever process asks.
   */
  retryUndelivered(platform: string): Promise<number>;
}

/** The start of the reason recorded when a job's target cannot be resolved (see `retryUndelivered`). */
const NO_TARGET = 'no home channel is set for ';

/** The namespace of the sessions scheduled runs use: `agent:cron:<platform>:dm:<job id>`. */
export const CRON_NAMESPACE = 'cron';

/** The session a job's runs use (fresh for each run: see `fire`). */
export function cronSessionKey(job: Pick<CronJob, 'id' | 'chat'>): string {
  return buildSessionKey({
    namespace: CRON_NAMESPACE,
    platform: job.chat.platform,
    chatType: 'dm',
    chatId: job.id,
  });
}

/** The job id of a scheduled run's session key, or undefined for other sessions. */
export function cronJobIdOf(sessionKey: string): string | undefined {
  const parts = sessionKey.split(':');
  return parts.length === 5 && parts[0] === 'agent' && parts[1] === CRON_NAMESPACE ? parts[4] : undefined;
}

/** True for the session of a scheduled run (a run may not schedule further tasks). */
export function isCronSession(sessionKey: string): boolean {
  return cronJobIdOf(sessionKey) !== undefined;
}

const ID_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** A short job id people can type (`/cron pause k7m2qx`). */
export function newCronJobId(): string {
  const bytes = randomBytes(8);
  let id = '';
  for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length];
  return id;
}

function sameChat(job: CronJob, chat: CronChat): boolean {
  return (
    job.chat.platform === chat.platform &&
    job.chat.chatId === chat.chatId &&
    (job.chat.threadId ?? '') === (chat.threadId ?? '')
  );
}

/**
 * Scheduled tasks on the store and the turn queue. A due run claims (job, due time) in the store,
 * so however many workers the scheduler wakes, one runs it; it is then an unattended turn of the
 * job's own session (fresh each run, with the toolsets chosen in the chat it was made in), whose
 * answer goes to that chat or to the platform's home channel like any answer: through the outbox,
 * with its retries. How that delivery went is recorded on the job (`noteDelivery`).
 */
export function createCronService(
  deps: CronServiceDeps,
  scheduler: () => CronScheduler | undefined,
): CronService {
  const { store, settings, logger } = deps;

  async function own(chat: CronChat, id: string): Promise<CronJob> {
    const job = await store.getCronJob(id.trim().toLowerCase());
    if (job === undefined || !sameChat(job, chat)) {
      throw new HermesError(
        'cron_job_unknown',
        `no scheduled task "${id.slice(0, 40)}" in this chat (/cron list shows them)`,
      );
    }
    return job;
  }

  async function changed(job: CronJob): Promise<CronJob> {
    await scheduler()?.changed(job);
    return job;
  }

  async function resolveTarget(
    job: CronJob,
  ): Promise<{ ok: true; origin: TurnOrigin } | { ok: false; reason: string }> {
    let chatId = job.chat.chatId;
    let threadId = job.chat.threadId;
    let chatType = job.chat.chatType;
    if (job.deliver === 'home') {
      const home =
        (await store.getHomeChannel(job.chat.platform)) ?? deps.configuredHome?.(job.chat.platform);
      if (home === undefined) {
        return {
          ok: false,
          reason: `${NO_TARGET}${job.chat.platform}: send /sethome in the chat that should get these messages`,
        };
      }
      if (home.chatId !== job.chat.chatId) chatType = 'group';
      chatId = home.chatId;
      threadId = home.threadId;
    }
    const origin = {
      platform: job.chat.platform,
      chatType,
      chatId,
      ...(threadId !== undefined ? { threadId } : {}),
      userId: job.createdBy,
      ...(job.createdByName !== undefined ? { userName: job.createdByName } : {}),
      unattended: true,
      ...(deps.presetOf !== undefined ? { toolset: deps.presetOf(job.chat.platform) } : {}),
    };
    return { ok: true, origin: origin as TurnOrigin };
  }

  /** Hands a run to the queue: a fresh conversation with the toolsets the chat has chosen. */
  async function submitRun(job: CronJob, origin: TurnOrigin, eventId: string, now: number): Promise<void> {
    const sessionKey = cronSessionKey(job);
    await store.rotateSession(sessionKey);
    const chatSession = await store.getSession(job.sessionKey);
    await store.updateSession(sessionKey, { toolsetOverrides: chatSession?.toolsetOverrides ?? null });
    await store.updateCronJob(job.id, { delivery: { status: 'pending', error: undefined, at: now } });
    await deps.submit({
      sessionKey,
      eventId,
      kind: 'message',
      text: runText(job),
      payload: origin as unknown as JsonValue,
      receivedAt: now,
      solo: true,
    });
  }

  return {
    async create(request) {
      if (isCronSession(request.sessionKey)) {
        throw new HermesError('usage', 'a scheduled run cannot schedule further tasks');
      }
      const prompt = request.prompt.trim();
      if (prompt === '')
        throw new HermesError('usage', 'a scheduled task needs a prompt: what should be done at each run');
      if (prompt.length > 10_000)
        throw new HermesError('usage', 'the prompt is longer than 10,000 characters');
      const existing = await store.listCronJobs({ chat: request.chat });
      if (existing.filter((job) => job.state !== 'done').length >= settings.maxJobsPerChat) {
        throw new HermesError(
          'usage',
          `this chat has ${settings.maxJobsPerChat} scheduled tasks already (cron.max_jobs_per_chat): delete one first`,
        );
      }
      const timezone = checkTimezone(request.timezone?.trim() || settings.timezone);
      const now = deps.now();
      const parsed = parseSchedule(request.schedule, {
        now,
        timezone,
        minIntervalMs: settings.minIntervalMs,
      });
      const job = await store.createCronJob({
        id: newCronJobId(),
        chat: request.chat,
        sessionKey: request.sessionKey,
        createdBy: request.userId,
        createdByName: request.userName,
        name: request.name?.trim().slice(0, 80) || undefined,
        prompt,
        schedule: request.schedule.trim().replace(/\s+/g, ' '),
        scheduleKind: parsed.kind,
        scheduleValue: parsed.value,
        timezone,
        deliver: request.deliver ?? 'origin',
        nextRunAt: parsed.firstRunAt,
        createdAt: now,
      });
      logger.info(
        { jobId: job.id, schedule: job.schedule, platform: job.chat.platform },
        'scheduled task created',
      );
      return changed(job);
    },
    list: (chat) => store.listCronJobs({ chat }),
    async pause(chat, id) {
      const job = await own(chat, id);
      if (job.state !== 'active')
        throw new HermesError('usage', `task ${job.id} is ${job.state}, not active`);
      return changed((await store.updateCronJob(job.id, { state: 'paused', nextRunAt: null })) ?? job);
    },
    async resume(chat, id) {
      const job = await own(chat, id);
      if (job.state !== 'paused')
        throw new HermesError('usage', `task ${job.id} is ${job.state}, not paused`);
      const next = nextRunAfter(job.scheduleKind, job.scheduleValue, deps.now(), job.timezone);
      if (next === undefined) {
        throw new HermesError(
          'usage',
          `task ${job.id} was due once, at a time that has passed: schedule it again`,
        );
      }
      return changed((await store.updateCronJob(job.id, { state: 'active', nextRunAt: next })) ?? job);
    },
    async remove(chat, id) {
      const job = await own(chat, id);
      await store.deleteCronJob(job.id);
      await scheduler()?.removed(job.id);
      logger.info({ jobId: job.id }, 'scheduled task deleted');
      return job;
    },
    async fire(jobId, dueAt) {
      const job = await store.getCronJob(jobId);
      if (job === undefined || job.state !== 'active' || job.nextRunAt === undefined) return 'inactive';
      // The store is the schedule: a BullMQ run before it (an interval scheduler set up again on
      // resume starts at once) waits for the stored time.
      if (dueAt < job.nextRunAt - DUE_TOLERANCE_MS) return 'not_due';
      const now = deps.now();
      const after = Math.max(now, dueAt);
      const next =
        job.scheduleKind === 'at'
          ? undefined
          : nextRunAfter(job.scheduleKind, job.scheduleValue, after, job.timezone);
      const gap = catchUpGapMs(job.scheduleKind, job.scheduleValue, now, job.timezone);
      if (job.lastRunAt !== undefined && now - job.lastRunAt < gap) {
        // A catch-up of a run this job already had: missed runs run once, not once each.
        await store.updateCronJob(job.id, { nextRunAt: next ?? null });
        return 'catch_up_skipped';
      }
      if (!(await store.claimCronRun(job.id, dueAt))) return 'duplicate';
      const ran = await store.updateCronJob(job.id, {
        lastRunAt: now,
        lastDueAt: dueAt,
        addRuns: 1,
        nextRunAt: next ?? null,
        ...(next === undefined ? { state: 'done' as const } : {}),
      });
      if (next === undefined && ran !== undefined) await scheduler()?.changed(ran);
      const target = await resolveTarget(job);
      if (!target.ok) {
        logger.error(
          { jobId: job.id, reason: target.reason },
          'scheduled task not run: its target cannot be resolved',
        );
        await store.updateCronJob(job.id, { delivery: { status: 'failed', error: target.reason, at: now } });
        return 'undeliverable';
      }
      await submitRun(job, target.origin, `cron:${job.id}:${dueAt}`, now);
      logger.info({ jobId: job.id, dueAt }, 'scheduled task run submitted');
      return 'submitted';
    },
    async retryUndelivered(platform) {
      let submitted = 0;
      for (const job of await store.listCronJobs({ failedOnly: true })) {
        const dueAt = job.lastDueAt;
        if (job.chat.platform !== platform || dueAt === undefined) continue;
        if (job.delivery?.error?.startsWith(NO_TARGET) !== true) continue;
        const target = await resolveTarget(job);
        if (!target.ok) continue;
        // The retry of a due time is claimed as its negative: one retry per due time, across
        // processes, and never confused with the run of a real due time.
        if (!(await store.claimCronRun(job.id, -dueAt))) continue;
        await submitRun(job, target.origin, `cron:${job.id}:${dueAt}:retry`, deps.now());
        logger.info({ jobId: job.id, dueAt }, 'scheduled task run that had no target submitted again');
        submitted += 1;
      }
      return submitted;
    },
    async noteDelivery(report) {
      const jobId = cronJobIdOf(report.sessionKey);
      if (jobId === undefined) return;
      const at = deps.now();
      const error = !report.delivered
        ? `the answer could not be sent (retried from the outbox): ${report.error ?? 'unknown error'}`
        : report.kind === 'failed'
          ? `the run failed: ${report.failure ?? 'unknown error'}`
          : undefined;
      if (error !== undefined) logger.error({ jobId, err: error }, 'scheduled task delivery failed');
      await store.updateCronJob(jobId, {
        delivery: { status: error === undefined ? 'delivered' : 'failed', error, at },
      });
    },
    failures: () => store.listCronJobs({ failedOnly: true }),
  };
}

/** What the model is asked at each run. */
function runText(job: CronJob): string {
  const label = job.name === undefined ? job.id : `"${job.name}" (${job.id})`;
  return [
    `[Scheduled task ${label}, schedule "${job.schedule}" (${job.timezone}). Nobody is waiting to answer ` +
      'questions: do the task and write the result as your final answer; it is sent to the chat.]',
    '',
    job.prompt,
  ].join('\n');
}
