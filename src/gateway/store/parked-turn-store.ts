/*
 * One area of the gateway's durable state (see GatewayStore in gateway-store.ts, the whole).
 * Every method returns a Promise so a networked database can implement it later. Times are
 * epoch milliseconds from the store's clock; optional values are `undefined` when absent, and in
 * patches `null` clears a value while `undefined` leaves it alone.
 */

/** Parked turns: the saved state of turns waiting for a human (an approval, a clarify answer). */
export interface ParkedTurnStore {
  /** Saves (or replaces) the state of a turn waiting for something, e.g. an approval. */
  saveParkedTurn(input: ParkedTurnInput): Promise<void>;
  getParkedTurn(turnId: string): Promise<ParkedTurn | undefined>;
  /** Removes a parked turn and returns it, atomically: exactly one caller gets it. */
  takeParkedTurn(turnId: string): Promise<ParkedTurn | undefined>;
  /**
   * Puts `next` in the place of a parked turn whose reason is still `reason`, in one step: true
   * for exactly one caller, and a crash leaves the old record or the new one, never neither (a
   * resume swaps the park for its recovery record this way).
   */
  replaceParkedTurn(turnId: string, reason: string, next: ParkedTurnInput): Promise<boolean>;
  /** True when this call removed it. */
  deleteParkedTurn(turnId: string): Promise<boolean>;
  /** Oldest first. `expiredBy` keeps only turns whose `expiresAt` is at or before that time. */
  listParkedTurns(options?: ListParkedTurnsOptions): Promise<ParkedTurn[]>;
}

export interface ParkedTurnInput {
  readonly turnId: string;
  readonly sessionKey: string;
  /** Any JSON-serialisable value. */
  readonly state: unknown;
  /** Why it is parked, e.g. `approval`. */
  readonly reason: string;
  readonly createdAt?: number;
  readonly expiresAt?: number | undefined;
}

export interface ParkedTurn {
  readonly turnId: string;
  readonly sessionKey: string;
  readonly state: unknown;
  readonly reason: string;
  readonly createdAt: number;
  readonly expiresAt: number | undefined;
}

export interface ListParkedTurnsOptions {
  readonly sessionKey?: string;
  readonly expiredBy?: number;
}
