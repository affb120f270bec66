/*
 * One area of the gateway's durable state (see GatewayStore in gateway-store.ts, the whole).
 * Every method returns a Promise so a networked database can implement it later. Times are
 * epoch milliseconds from the store's clock; optional values are `undefined` when absent, and in
 * patches `null` clears a value while `undefined` leaves it alone.
 */

/** Pairing: pending codes and approved users, per platform. */
export interface PairingStore {
  /** Stores a pending pairing code (codes are compared upper-cased). Replaces a code of the same value. */
  addPairingCode(input: PairingCodeInput): Promise<PairingCode>;
  /** Pending codes not yet expired, oldest first. */
  listPairingCodes(platform?: string): Promise<PairingCode[]>;
  /**
   * Approves the user behind a pending, unexpired code and removes the code, atomically.
   * Undefined when the code is unknown or expired.
   */
  consumePairingCode(platform: string, code: string, approvedBy: string): Promise<PairedUser | undefined>;
  /** Drops pending codes (of one platform, or all); returns how many. */
  clearPairingCodes(platform?: string): Promise<number>;
  isPairedUser(platform: string, userId: string): Promise<boolean>;
  listPairedUsers(platform?: string): Promise<PairedUser[]>;
  /** Removes an approved user; false when there was none. */
  revokePairedUser(platform: string, userId: string): Promise<boolean>;
}

export interface PairingCodeInput {
  readonly code: string;
  readonly platform: string;
  readonly userId: string;
  readonly userName: string | undefined;
  readonly expiresAt: number;
  /** Defaults to the store clock. */
  readonly createdAt?: number;
}

export interface PairingCode {
  readonly code: string;
  readonly platform: string;
  readonly userId: string;
  readonly userName: string | undefined;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export interface PairedUser {
  readonly platform: string;
  readonly userId: string;
  readonly userName: string | undefined;
  readonly approvedBy: string;
  readonly approvedAt: number;
}
