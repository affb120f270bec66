import { HermesError } from '../../errors/hermes-error.js';

/**
 * Why a turn's signal fired:
 * - `interrupt`: a new message asked the turn to stop (busy mode `interrupt`); the turn is over.
 * - `shutdown`: the process is closing; the turn is left for another worker or reported.
 * - `lock_lost`: another worker owns the session now (this one stalled past its lock).
 */
export type TurnAbortReason = 'interrupt' | 'shutdown' | 'lock_lost';

export class TurnAbortedError extends HermesError {
  readonly reason: TurnAbortReason;

  constructor(reason: TurnAbortReason) {
    super('turn_aborted', `turn aborted: ${reason.replace('_', ' ')}`);
    this.name = 'TurnAbortedError';
    this.reason = reason;
  }
}

/** Aborts once; a later reason never replaces the first. */
export function abortTurn(controller: AbortController, reason: TurnAbortReason): void {
  if (!controller.signal.aborted) controller.abort(new TurnAbortedError(reason));
}

/** The reason a turn signal fired, or undefined while it has not. */
export function turnAbortReason(signal: AbortSignal): TurnAbortReason | undefined {
  if (!signal.aborted) return undefined;
  const reason: unknown = signal.reason;
  return reason instanceof TurnAbortedError ? reason.reason : 'shutdown';
}
