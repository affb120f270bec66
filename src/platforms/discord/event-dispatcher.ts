import type { Logger } from 'pino';
import { pause } from '../../lib/abortable-sleep.js';
import { backoffDelay } from '../../lib/backoff-delay.js';
import { createOrderedDispatcher } from '../shared/ordered-dispatcher.js';

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
  /** Resolves when nothing is running. */
  idle(): Promise<void>;
  /** Stops waiting between attempts (the attempt in progress finishes). */
  close(): void;
}

/**
 * Hands Discord events to the gateway on the shared ordered dispatcher (order per lane — a
 * channel, a thread, a DM — and each event once, since a resumed session may replay one). Discord
 * never delivers an event again, so a failed hand-over is retried here, in place, with growing
 * pauses: the events behind it in the lane wait and order holds. After `maxAttempts` it is given
 * up and the user is told.
 */
export function createEventDispatcher(options: EventDispatcherOptions): EventDispatcher {
  const closing = new AbortController();
  const ordered = createOrderedDispatcher({
    logger: options.logger,
    what: 'discord event',
    // The retries happen inside one job (below); its one failure is the final one.
    maxFailures: 1,
    describeError: options.describe,
  });

  async function attempts(job: DispatchJob, failed: { error?: unknown }): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await job.run();
        options.observe?.(job.eventId, 'done');
        return;
      } catch (error) {
        const last = attempt >= options.maxAttempts || closing.signal.aborted;
        options.observe?.(job.eventId, last ? 'gave_up' : 'failed');
        if (last) {
          failed.error = error;
          throw error;
        }
        options.logger.warn(
          { eventId: job.eventId, attempt, err: options.describe(error) },
          'discord event not taken by the gateway; trying again',
        );
        await pause(backoffDelay(attempt, options.backoffMs, 30_000), closing.signal);
      }
    }
  }

  return {
    async dispatch(job) {
      const failed: { error?: unknown } = {};
      await ordered.dispatch(job.eventId, () => ({
        ...(job.lane !== undefined ? { lane: job.lane } : {}),
        run: () => attempts(job, failed),
        giveUp: () =>
          job
            .giveUp(failed.error)
            .catch((error: unknown) =>
              options.logger.warn({ err: options.describe(error) }, 'discord: could not tell the user'),
            ),
      }));
    },
    idle: () => ordered.idle(),
    close() {
      closing.abort();
    },
  };
}
