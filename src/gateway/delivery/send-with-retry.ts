import { backoffDelay } from '../../lib/backoff-delay.js';
import { PlatformError } from '../../platforms/adapter.js';

export interface RetryPolicy {
  /** Calls in total, the first included. */
  readonly maxAttempts: number;
  /** First backoff delay (ms); doubles per failure up to `maxDelayMs`, then jittered. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A platform asking to wait longer than this (ms) is not waited for: the send fails. */
  readonly maxRetryAfterMs: number;
  /** [0, 1); jitter source. */
  readonly random: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export type RetryResult<T> =
  | { readonly ok: true; readonly value: T; readonly attempts: number }
  | { readonly ok: false; readonly error: unknown; readonly attempts: number; readonly reason: string };

/**
 * Runs one platform call with retries:
 *
 * - a `PlatformError` that is not retryable (too long, forbidden, not found, bad request) fails
 *   at once;
 * - a rate limit or outage is retried after the platform's `retryAfterMs` exactly when it gave
 *   one, else after an exponential backoff with jitter (half to all of the delay);
 * - a failure that may have been delivered anyway (`maybeDelivered`, or an error that is not a
 *   `PlatformError` at all) is retried once: a possible duplicate beats a silent loss.
 */
export async function sendWithRetry<T>(
  call: () => Promise<T>,
  policy: RetryPolicy,
  signal?: AbortSignal,
): Promise<RetryResult<T>> {
  let ambiguousRetried = false;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return { ok: true, value: await call(), attempts: attempt };
    } catch (error) {
      const platformError = error instanceof PlatformError ? error : undefined;
      const ambiguous = platformError === undefined || platformError.maybeDelivered;
      const fail = (reason: string): RetryResult<T> => ({ ok: false, error, attempts: attempt, reason });
      if (platformError !== undefined && !platformError.retryable && !platformError.maybeDelivered) {
        return fail(`not retryable (${platformError.code})`);
      }
      if (ambiguous) {
        if (ambiguousRetried) return fail('may have been delivered; already retried once');
        ambiguousRetried = true;
      }
      if (attempt >= policy.maxAttempts) return fail(`gave up after ${attempt} attempts`);
      if (signal?.aborted === true) return fail('aborted');
      const retryAfter = platformError?.retryAfterMs;
      let delay: number;
      if (retryAfter !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0) {
        if (retryAfter > policy.maxRetryAfterMs) {
          return fail(`platform asked to wait ${retryAfter} ms (more than ${policy.maxRetryAfterMs})`);
        }
        delay = retryAfter;
      } else {
        const full = backoffDelay(attempt, policy.baseDelayMs, policy.maxDelayMs);
        delay = Math.round(full / 2 + (full / 2) * policy.random());
      }
      try {
        await policy.sleep(delay, signal);
      } catch {
        return fail('aborted');
      }
    }
  }
}
