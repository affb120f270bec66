/*
 * One area of the gateway's durable state (see GatewayStore in gateway-store.ts, the whole).
 * Every method returns a Promise so a networked database can implement it later. Times are
 * epoch milliseconds from the store's clock; optional values are `undefined` when absent, and in
 * patches `null` clears a value while `undefined` leaves it alone.
 */

/**
 * Turn failures: the turns that ended failed, whichever process ran them, for the operator
 * dashboard's list of recent failures. Kept for the delivery retention (pruned with the outbox).
 */
export interface TurnFailureStore {
  /** Records a failed turn; the first record of a turn id wins (false afterwards). */
  recordTurnFailure(input: TurnFailureInput): Promise<boolean>;
  /** The most recent failures, newest first (default 20, at most 200). */
  listTurnFailures(options?: { readonly limit?: number }): Promise<TurnFailure[]>;
}

/** Longest message kept: the failure notice's words, not a log. */
export const MAX_TURN_FAILURE_MESSAGE = 500;

export interface TurnFailureInput {
  readonly turnId: string;
  readonly sessionKey: string;
  readonly platform: string;
  /** The turn's failure code (`model_unreachable`, `internal`, …). */
  readonly code: string;
  /** Plain words, cut to MAX_TURN_FAILURE_MESSAGE characters. */
  readonly message: string;
  /** Defaults to the store clock. */
  readonly at?: number;
}

export interface TurnFailure {
  readonly turnId: string;
  readonly sessionKey: string;
  readonly platform: string;
  readonly code: string;
  readonly message: string;
  readonly at: number;
}
