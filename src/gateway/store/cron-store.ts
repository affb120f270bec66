/*
 * One area of the gateway's durable state (see GatewayStore in gateway-store.ts, the whole).
 * Every method returns a Promise so a networked database can implement it later. Times are
 * epoch milliseconds from the store's clock; optional values are `undefined` when absent, and in
 * patches `null` clears a value while `undefined` leaves it alone.
 */

/** Scheduled tasks (`cronjob` tool, `/cron`): what runs when, for which chat, and how it went. */
export interface CronStore {
  /** Stores a new job; throws `store_failed` when the id is taken. */
  createCronJob(input: CronJobInput): Promise<CronJob>;
  getCronJob(id: string): Promise<CronJob | undefined>;
  /** Jobs oldest first; `chat` narrows to the jobs created in one chat (thread included). */
  listCronJobs(options?: ListCronJobsOptions): Promise<CronJob[]>;
  /** Applies a patch; undefined when the job does not exist. */
  updateCronJob(id: string, patch: CronJobPatch): Promise<CronJob | undefined>;
  /** True when the job existed. Its run records go with it. */
  deleteCronJob(id: string): Promise<boolean>;
  /**
   * Claims the run of a job due at `dueAt`: true only for the first caller, whichever process
   * asks (how two workers never both run one due time).
   */
  claimCronRun(jobId: string, dueAt: number): Promise<boolean>;
}

export type CronScheduleKind = 'cron' | 'every' | 'at';
export type CronJobState = 'active' | 'paused' | 'done';
/** Where a run's answer goes: the chat the job was made in, or the platform's home channel. */
export type CronDeliverTo = 'origin' | 'home';
/** How the last run's answer fared: `pending` until the chat platform reports it delivered or failed. */
export type CronDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** The chat a job belongs to. */
export interface CronChat {
  readonly platform: string;
  readonly chatType: string;
  readonly chatId: string;
  readonly threadId?: string | undefined;
}

export interface CronJobInput {
  /** Short, unique (see newCronJobId in gateway/cron). */
  readonly id: string;
  readonly chat: CronChat;
  /** The chat's session, whose toolset choice runs inherit. */
  readonly sessionKey: string;
  readonly createdBy: string;
  readonly createdByName?: string | undefined;
  readonly name?: string | undefined;
  readonly prompt: string;
  /** As the user wrote it (`0 9 * * *`, `every 2h`, `at 2026-12-03 09:00`). */
  readonly schedule: string;
  readonly scheduleKind: CronScheduleKind;
  /** The canonical form the scheduler uses: a cron expression, interval ms, or epoch ms. */
  readonly scheduleValue: string;
  /** IANA time zone the schedule is read in. */
  readonly timezone: string;
  readonly deliver: CronDeliverTo;
  readonly nextRunAt: number | undefined;
  /** Defaults to the store clock. */
  readonly createdAt?: number;
}

export interface CronJob {
  readonly id: string;
  readonly chat: CronChat;
  readonly sessionKey: string;
  readonly createdBy: string;
  readonly createdByName: string | undefined;
  readonly name: string | undefined;
  readonly prompt: string;
  readonly schedule: string;
  readonly scheduleKind: CronScheduleKind;
  readonly scheduleValue: string;
  readonly timezone: string;
  readonly deliver: CronDeliverTo;
  readonly state: CronJobState;
  /** Undefined for a paused or finished job. */
  readonly nextRunAt: number | undefined;
  /** When the last run was started (wall clock), and the time it was due. */
  readonly lastRunAt: number | undefined;
  readonly lastDueAt: number | undefined;
  readonly runCount: number;
  /** How the last run's delivery went; undefined before the first run. */
  readonly delivery: CronDelivery | undefined;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface CronDelivery {
  readonly status: CronDeliveryStatus;
  /** Why it failed (failed only). */
  readonly error: string | undefined;
  readonly at: number;
}

export interface CronJobPatch {
  readonly state?: CronJobState;
  readonly nextRunAt?: number | null;
  readonly lastRunAt?: number | null;
  readonly lastDueAt?: number | null;
  /** Adds to the run count. */
  readonly addRuns?: number;
  readonly delivery?: CronDelivery | null;
}

export interface ListCronJobsOptions {
  readonly chat?: CronChat;
  /** Only jobs whose last delivery failed. */
  readonly failedOnly?: boolean;
}
