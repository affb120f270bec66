import type { Logger } from 'pino';
import type { JsonValue } from '../../lib/is-json-value.js';

/**
 * The turn queue: the seam between ingress (producer) and the turn runner (consumer).
 *
 * Ingress calls `submit()` for every inbound item and tells the user what happened from the
 * returned status. The runner registers one handler with `startWorkers()`; the queue calls it
 * with a batch of items of one session, never two batches of one session at the same time.
 * Two implementations keep the same contract: an in-process one (no setup) and one on BullMQ +
 * Redis (several worker processes, survives a crashed worker).
 */

export type { JsonValue };

/** One unit of work for a session, in the order it arrived. */
export interface InboxItem {
  readonly sessionKey: string;
  /** Platform event id; the same id twice within the dedupe window is ignored. */
  readonly eventId: string;
  /** `message`: user input. `resume`: continue a parked turn (never steers or interrupts). */
  readonly kind: 'message' | 'resume';
  readonly text?: string;
  readonly payload?: JsonValue;
  /** Epoch milliseconds when ingress received the event. */
  readonly receivedAt: number;
  /**
   * False for a message that must wait for the next turn whatever the busy mode (`/queue`):
   * it never interrupts or steers. Default true for messages.
   */
  readonly steerable?: boolean;
  /**
   * False when the event id is unique by construction (a fresh UUID per API request), so
   * remembering it for dedupe would only cost memory. Default true.
   */
  readonly dedupe?: boolean;
  /**
   * True for an item that must be a turn of its own: never merged with other waiting items into
   * one turn, and never steers or interrupts (it waits its turn, in order). An API request
   * expects the answer to its own message; merging is a chat behaviour. Default false.
   */
  readonly solo?: boolean;
}

/**
 * What `submit` did with an item:
 * - `started`: no turn of the session was running; a turn with this item is scheduled now
 *   (it may still wait for a free worker slot).
 * - `queued`: a turn is running (or being recovered); the item goes to the next turn.
 * - `steered`: a turn is running in steer mode; it can take the item at its next tool boundary,
 *   otherwise the item runs as the next turn.
 * - `interrupting`: the running turn was asked to stop; the item runs next.
 * - `duplicate`: the event id was already seen within the dedupe window; nothing was stored.
 */
export type SubmitStatus = 'started' | 'queued' | 'steered' | 'interrupting' | 'duplicate';

export interface SubmitResult {
  readonly status: SubmitStatus;
}

/** What happens to a message that arrives while its session has a turn running. */
export type BusyInputMode = 'queue' | 'interrupt' | 'steer';

/** One turn handed to the runner. */
export interface TurnContext {
  /** Stable across retries and crash recovery: the runner keys its persisted steps on it. */
  readonly turnId: string;
  readonly sessionKey: string;
  /**
   * Every item of this turn in arrival order. On a retry (`attempt > 1`) it also holds the items
   * already taken with `takeSteering()`; skip those the persisted transcript already has (by eventId).
   */
  readonly items: readonly InboxItem[];
  /** 1 for the first run; above 1 when a failed or crashed turn runs again from its last persisted step. */
  readonly attempt: number;
  /** Aborted on interrupt, shutdown or a lost session lock; `turnAbortReason(signal)` says which. */
  readonly signal: AbortSignal;
  /**
   * Steer mode only (elsewhere always empty): takes the messages that arrived since the turn began,
   * in order. Call it at tool boundaries. What it returns belongs to this turn from then on.
   */
  takeSteering(): Promise<readonly InboxItem[]>;
}

/**
 * Runs one turn. Returning means the turn is finished (answered, parked or given up on purpose).
 * Throwing means it failed: it is retried with backoff, then reported through `onFailed`.
 * A throw after an interrupt ends the turn quietly (the new message runs next); a throw after a
 * shutdown abort leaves the turn for another worker (BullMQ) or reports it (embedded).
 */
export type TurnHandler = (turn: TurnContext) => Promise<void>;

/** Called once a turn's items are given up on; the gateway must tell the user. Never silence. */
export type TurnFailedHandler = (
  sessionKey: string,
  items: readonly InboxItem[],
  error: unknown,
) => void | Promise<void>;

export interface StartWorkersOptions {
  /** Turns of different sessions run at the same time, up to this many in this process. */
  readonly concurrency: number;
  readonly onFailed: TurnFailedHandler;
}

export interface TurnQueue {
  /** `embedded` or `bullmq`, for banners and /readyz. */
  readonly kind: 'embedded' | 'bullmq';
  submit(item: InboxItem): Promise<SubmitResult>;
  /**
   * Stops the session's turn in progress (`/stop`, `/new`): its signal aborts with reason
   * `interrupt`, and the items waiting behind it run next as usual. Works from any process (the
   * BullMQ queue reaches the worker running the turn). Resolves true when the session had a turn
   * in progress (also when it was already asked to stop), false when it was idle.
   */
  interrupt(sessionKey: string): Promise<boolean>;
  /** Starts consuming (once per instance). A producer-only process never calls it. */
  startWorkers(handler: TurnHandler, options: StartWorkersOptions): Promise<void>;
  /** Items waiting for a turn (not counting those handed to running turns). For /metrics. */
  depth(): Promise<number>;
  /** Turns running in this process right now. For /metrics. */
  activeTurns(): number;
  /**
   * Of the given sessions, those with a turn running right now in any process (BullMQ: the
   * session's lock and its turn marked running in Redis). For the operator dashboard.
   */
  runningSessions(sessionKeys: readonly string[]): Promise<ReadonlySet<string>>;
  /** For /readyz. */
  health(): Promise<{ readonly ok: boolean; readonly reason?: string }>;
  /**
   * Stops taking work, lets running turns finish for up to `graceMs`, then aborts them (reason
   * `shutdown`) and closes what the queue owns. Idempotent: every call returns the same promise.
   */
  close(options?: { readonly graceMs?: number }): Promise<void>;
}

/** Options both implementations take. */
export interface TurnQueueOptions {
  readonly logger: Logger;
  /** Default `queue`. */
  readonly busyInputMode?: BusyInputMode;
  /** Milliseconds an event id is remembered for dedupe. Default 1 h. */
  readonly dedupeWindowMs?: number;
  /** Runs of one turn before it is given up (throws and crashes both count). Default 3. */
  readonly maxAttempts?: number;
  /** First retry delay in ms; doubles per failure up to `maxBackoffMs`. Default 1000. */
  readonly backoffMs?: number;
  /** Default 30 000. */
  readonly maxBackoffMs?: number;
  /** Default grace for `close()`, in ms. Default 30 000. */
  readonly shutdownGraceMs?: number;
  /** After aborting at shutdown, ms to wait for handlers to return before closing anyway. Default 5000. */
  readonly abortWaitMs?: number;
}

export const QUEUE_DEFAULTS = {
  busyInputMode: 'queue',
  dedupeWindowMs: 3_600_000,
  maxAttempts: 3,
  backoffMs: 1_000,
  maxBackoffMs: 30_000,
  shutdownGraceMs: 30_000,
  abortWaitMs: 5_000,
} as const satisfies Required<Omit<TurnQueueOptions, 'logger'>>;

/** Settings shared by both implementations, with the defaults filled in. */
export type QueueSettings = Required<Omit<TurnQueueOptions, 'logger' | 'busyInputMode'>>;

export function resolveQueueSettings(options: TurnQueueOptions): QueueSettings {
  return {
    dedupeWindowMs: options.dedupeWindowMs ?? QUEUE_DEFAULTS.dedupeWindowMs,
    maxAttempts: options.maxAttempts ?? QUEUE_DEFAULTS.maxAttempts,
    backoffMs: options.backoffMs ?? QUEUE_DEFAULTS.backoffMs,
    maxBackoffMs: options.maxBackoffMs ?? QUEUE_DEFAULTS.maxBackoffMs,
    shutdownGraceMs: options.shutdownGraceMs ?? QUEUE_DEFAULTS.shutdownGraceMs,
    abortWaitMs: options.abortWaitMs ?? QUEUE_DEFAULTS.abortWaitMs,
  };
}
