/*
 * One area of the gateway's durable state (see GatewayStore in gateway-store.ts, the whole).
 * Every method returns a Promise so a networked database can implement it later. Times are
 * epoch milliseconds from the store's clock; optional values are `undefined` when absent, and in
 * patches `null` clears a value while `undefined` leaves it alone.
 */

/** Housekeeping of the whole store: pruning, the readiness ping, closing. */
export interface StoreUpkeep {
  /**
   * Deletes expired dedupe rows and pairing codes, and receipts, resolved action prompts,
   * unannounced delivery failures, outbox entries and failed-turn records older than the retention.
   */
  prune(options?: PruneOptions): Promise<PruneReport>;
  /** Throws when the store cannot serve (for `/readyz`). */
  ping(): Promise<void>;
  /** Releases the database; idempotent. Later calls fail with `store_failed`. */
  close(): Promise<void>;
}

export interface PruneOptions {
  /** Receipts, resolved action prompts, delivery failures, outbox entries and failed-turn records older than this are deleted; default 7 days. */
  readonly deliveryRetentionMs?: number;
}

export interface PruneReport {
  readonly events: number;
  readonly pairingCodes: number;
  readonly deliveries: number;
  readonly actionPrompts: number;
  readonly deliveryFailures: number;
  /** Outbox entries done (or never delivered) longer than the retention. */
  readonly outbox: number;
  /** Failed-turn records older than the retention. */
  readonly turnFailures: number;
}

export const DEFAULT_DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
