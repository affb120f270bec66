import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waiting, on Node's `timers/promises`:
 *
 * - `abortableSleep(ms, signal)`: resolves after `ms`, or rejects with the signal's own reason as
 *   soon as it fires (Node rejects with a generic AbortError; callers here look at their reason).
 * - `pause(ms, signal?)`: resolves after `ms`, or at once when `signal` fires; never rejects (the
 *   backoff of a loop that checks its signal itself).
 * - `waitAtMost(done, ms)`: waits for `done` at most `ms`; true when it settled in time.
 */
export async function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  }
}

/** Resolves after `ms`, or at once when `signal` fires. Never rejects. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return sleep(ms, undefined, signal === undefined ? {} : { signal }).catch(() => undefined);
}

/** Waits for `done` for at most `ms`; true when it settled in time. Never rejects. */
export async function waitAtMost(done: Promise<unknown>, ms: number): Promise<boolean> {
  const timer = new AbortController();
  try {
    return await Promise.race([
      done.then(
        () => true,
        () => true,
      ),
      sleep(ms, false, { signal: timer.signal }),
    ]);
  } finally {
    timer.abort();
  }
}
