import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';

/** What happened to one attempt at handing an event over (reported to `observe`). */
export type AttemptOutcome = 'done' | 'failed' | 'gave_up';

export interface EventDispatcherOptions {
  readonly logger: Logger;
  /** Attempts of one event before it is given up (Discord never delivers an event again). */
  readonly maxAttempts: number;
  /** Pause before the second attempt, ms; doubles per attempt up to 30 s. */
  readonly backoffMs: number;
  /** Describes a failure for the log (token-free). */
  readonly describe: (error: unknown) => string;
  /** Sees every attempt's outcome (metrics, tests). */
  readonly observe?: (eventId: string, outcome: AttemptOutcome) => void;
}

export interface DispatchJob {
  readonly eventId: string;
  /** Jobs of one lane run one after the other, in arrival order; none: at once. */
  readonly lane?: string;
  readonly run: () => Promise<void>;
  /** After the last failed attempt: tell the user (best effort). */
  readonly giveUp: (error: unknown) => Promise<void>;
}

export interface EventDispatcher {
  /** Runs a job unless the same event id is running or recently done; resolves when settled. */
  dispatch(job: DispatchJob): Promise<void>;
  /** Resolves when nothing is running; stops waiting retries. */
  idle(): Promise<void>;
  close(): void;
}

const RECENT_CAP = 4_096;

/**
 * Hands Discord events to the gateway: in order per lane (a channel, a thread, a DM), each event
 * once (a resumed gateway session may replay one), retried in place with growing pauses when the
 * gateway could not take it — the events behind it in the lane wait, so order holds — and given
 * up after `maxAttempts`, with the user told.
 */
export function createEventDispatcher(options: EventDispatcherOptions): EventDispatcher {
  const { logger } = options;
  const lanes = new Map<string, Promise<unknown>>();
  const inFlight = new Map<string, Promise<void>>();
  const recent = new Set<string>();
  const closing = new AbortController();

  function remember(eventId: string): void {
    recent.add(eventId);
    if (recent.size > RECENT_CAP) {
      const oldest = recent.values().next();
      if (!oldest.done) recent.delete(oldest.value);
    }
  }

  async function attempts(job: DispatchJob): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await job.run();
        remember(job.eventId);
        options.observe?.(job.eventId, 'done');
        return;
      } catch (error) {
        const last = attempt >= options.maxAttempts || closing.signal.aborted;
        options.observe?.(job.eventId, last ? 'gave_up' : 'failed');
        if (last) {
          logger.error(
            { eventId: job.eventId, attempts: attempt, err: options.describe(error) },
            'discord event given up after repeated failures',
          );
          remember(job.eventId);
          await job
            .giveUp(error)
            .catch((giveUpError: unknown) =>
              logger.warn({ err: options.describe(giveUpError) }, 'discord: could not tell the user'),
            );
          return;
        }
        logger.warn(
          { eventId: job.eventId, attempt, err: options.describe(error) },
          'discord event not taken by the gateway; trying again',
        );
        const delay = Math.min(30_000, options.backoffMs * 2 ** (attempt - 1));
        await sleep(delay, undefined, { signal: closing.signal }).catch(() => undefined);
      }
    }
  }

  return {
    dispatch(job) {
      if (recent.has(job.eventId)) return Promise.resolve();
      const running = inFlight.get(job.eventId);
      if (running !== undefined) return running;
      let current: Promise<void>;
      if (job.lane === undefined) {
        current = attempts(job);
      } else {
        const lane = job.lane;
        const previous = lanes.get(lane) ?? Promise.resolve();
        current = previous.then(
          () => attempts(job),
          () => attempts(job),
        );
        lanes.set(lane, current);
        void current.finally(() => {
          if (lanes.get(lane) === current) lanes.delete(lane);
        });
      }
      inFlight.set(job.eventId, current);
      void current.finally(() => inFlight.delete(job.eventId));
      return current;
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight.values()]);
    },
    close() {
      closing.abort();
    },
  };
}
