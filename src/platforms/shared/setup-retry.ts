import type { Logger } from 'pino';
import { pause } from '../../lib/abortable-sleep.js';
import { backoffDelay } from '../../lib/backoff-delay.js';
import type { AdapterHealth } from '../adapter.js';

/**
 * Connecting an adapter to its platform (who am I, register the webhook, open the connection),
 * retried until it works, and the health /readyz shows meanwhile:
 *
 *   const setup = createSetupRetry({ logger, what: 'telegram', setup: connect, describeError });
 *   await setup.attempt()     // true once set up (then at once); false with the problem recorded
 *   setup.retryInBackground() // attempts again with backoff until it works or stop()
 *   setup.report(problem)     // a problem found later (polling fails), `undefined` once it is over
 *   setup.health(started)     // not started / the last problem / ok
 *   setup.stop()              // ends background attempts; the next attempt sets up again
 *
 * A failed attempt is logged as an error once per distinct problem, not on every retry.
 */

export interface SetupRetryOptions {
  readonly logger: Logger;
  /** The platform, for log lines and health: `telegram set-up failed: …`. */
  readonly what: string;
  /** Connects; throws when it could not (it is attempted again). */
  readonly setup: () => Promise<void>;
  /** An error as text without secrets. */
  readonly describeError: (error: unknown) => string;
  /** First wait after a failed background attempt, ms; doubles up to `maxBackoffMs`. Default 1000. */
  readonly backoffMs?: number;
  /** Default 30 000. */
  readonly maxBackoffMs?: number;
}

export interface SetupRetry {
  attempt(): Promise<boolean>;
  retryInBackground(): void;
  report(problem: string | undefined): void;
  health(started: boolean): AdapterHealth;
  stop(): void;
}

export function createSetupRetry(options: SetupRetryOptions): SetupRetry {
  const backoffMs = options.backoffMs ?? 1000;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  let done = false;
  let problem: string | undefined;
  let background: AbortController | undefined;

  async function attempt(): Promise<boolean> {
    if (done) return true;
    try {
      await options.setup();
      done = true;
      problem = undefined;
      return true;
    } catch (error) {
      const reason = `${options.what} set-up failed: ${options.describeError(error)}`;
      if (problem !== reason) options.logger.error(reason);
      problem = reason;
      return false;
    }
  }

  return {
    attempt,
    retryInBackground() {
      if (background !== undefined) return;
      const controller = new AbortController();
      background = controller;
      void (async () => {
        for (let failures = 1; !controller.signal.aborted && !(await attempt()); failures += 1) {
          await pause(backoffDelay(failures, backoffMs, maxBackoffMs), controller.signal);
        }
        if (background === controller) background = undefined;
      })();
    },
    report(next) {
      problem = next;
    },
    health(started) {
      if (!started) return { ok: false, reason: 'not started' };
      return problem === undefined ? { ok: true } : { ok: false, reason: problem };
    },
    stop() {
      background?.abort();
      background = undefined;
      done = false;
    },
  };
}
