import type { Logger } from 'pino';
import { HermesError } from '../../errors/hermes-error.js';
import { abortableSleep } from '../../lib/abortable-sleep.js';
import { backoffDelay } from '../../lib/backoff-delay.js';
import { type TurnAbortReason, turnAbortReason } from './turn-abort.js';
import type { InboxItem, TurnContext, TurnFailedHandler, TurnHandler } from './turn-queue.js';

/** How a turn left the worker: finished (or given up and reported), shut down, or taken over. */
export type TurnOutcome = 'done' | 'shutdown' | 'lost';

export interface TurnAttemptsInput {
  readonly turnId: string;
  readonly sessionKey: string;
  /** The turn's items; steering appends to it so a retry sees them too. */
  readonly items: InboxItem[];
  /** Attempt number of the first run here (above 1 when a crashed turn is recovered). */
  readonly attempt: number;
  /** Failed runs recorded before this worker got the turn (crashes). */
  readonly failures: number;
  readonly controller: AbortController;
  readonly handler: TurnHandler;
  readonly onFailed: TurnFailedHandler;
  readonly maxAttempts: number;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  readonly logger: Logger;
  /** Moves waiting steerable items into the turn; returns them (empty outside steer mode). */
  takeSteering(): Promise<readonly InboxItem[]>;
  /** Records a failed run; returns the failures so far, or undefined when the session lock is gone. */
  attemptFailed(): Promise<number | undefined>;
  /** Records the start of another run; returns its attempt number, or undefined when the lock is gone. */
  beginAttempt(): Promise<number | undefined>;
}

/**
 * Runs a turn's handler with bounded retries and backoff, shared by both queue implementations
 * so they agree on what a throw, an interrupt and a shutdown mean.
 */
export async function runTurnAttempts(input: TurnAttemptsInput): Promise<TurnOutcome> {
  const { controller, logger, maxAttempts } = input;
  const signal = controller.signal;
  const log = logger.child({ sessionKey: input.sessionKey, turnId: input.turnId });

  if (input.failures >= maxAttempts) {
    const error = new HermesError(
      'turn_failed',
      `the turn stopped ${input.failures} times without finishing (a worker crashed or lost its lock)`,
    );
    await reportFailure(input, error, log);
    return 'done';
  }

  let attempt = input.attempt;
  for (;;) {
    const early = turnAbortReason(signal);
    // An interrupted turn still runs so the runner can record its messages; a shut-down one does not.
    if (early === 'shutdown' || early === 'lock_lost') return outcomeOf(early);
    try {
      await input.handler(contextFor(input, attempt));
      return 'done';
    } catch (error) {
      const reason = turnAbortReason(signal);
      if (reason !== undefined) return outcomeOf(reason);
      const failures = await input.attemptFailed();
      if (failures === undefined) return 'lost';
      log.warn({ err: error, attempt, failures }, 'turn handler failed');
      if (failures >= maxAttempts) {
        await reportFailure(input, error, log);
        return 'done';
      }
      try {
        await abortableSleep(backoffDelay(failures, input.backoffMs, input.maxBackoffMs), signal);
      } catch {
        return outcomeOf(turnAbortReason(signal) ?? 'shutdown');
      }
      const next = await input.beginAttempt();
      if (next === undefined) return 'lost';
      attempt = next;
    }
  }
}

function contextFor(input: TurnAttemptsInput, attempt: number): TurnContext {
  return {
    turnId: input.turnId,
    sessionKey: input.sessionKey,
    items: [...input.items],
    attempt,
    signal: input.controller.signal,
    takeSteering: () => input.takeSteering(),
  };
}

function outcomeOf(reason: TurnAbortReason): TurnOutcome {
  if (reason === 'interrupt') return 'done';
  return reason === 'shutdown' ? 'shutdown' : 'lost';
}

async function reportFailure(input: TurnAttemptsInput, error: unknown, log: Logger): Promise<void> {
  log.error({ err: error, items: input.items.length }, 'turn given up; reporting to the user');
  try {
    await input.onFailed(input.sessionKey, [...input.items], error);
  } catch (reportError) {
    log.error({ err: reportError }, 'onFailed threw');
  }
}
