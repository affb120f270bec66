/*
 * One area of the gateway's durable state (see GatewayStore in gateway-store.ts, the whole).
 * Every method returns a Promise so a networked database can implement it later. Times are
 * epoch milliseconds from the store's clock; optional values are `undefined` when absent, and in
 * patches `null` clears a value while `undefined` leaves it alone.
 */

/** Inbound dedupe: platform event ids already taken, each for a window. */
export interface InboundDedupeStore {
  /**
   * Records an inbound event id; true the first time, false while a previous record of the
   * same id is alive (a platform retry). Atomic across callers. Expired rows are pruned as it goes.
   */
  markEventProcessed(platform: string, eventId: string, ttlMs: number): Promise<boolean>;
  /**
   * Forgets a recorded inbound event id, so the platform's retry of an event that could not be
   * accepted after all (its queueing failed) is processed instead of dropped as a duplicate.
   */
  releaseEvent(platform: string, eventId: string): Promise<void>;
}

/** Delivery receipts: what was sent for a receipt key, so a retried delivery sends nothing twice. */
export interface DeliveryReceiptStore {
  /** Stores a delivery receipt; the first record of a key wins (`created: false` afterwards). */
  recordDelivery(input: DeliveryInput): Promise<RecordDeliveryResult>;
  getDelivery(receiptKey: string): Promise<DeliveryReceipt | undefined>;
}

export interface DeliveryInput {
  readonly receiptKey: string;
  readonly platform: string;
  readonly chatId: string;
  readonly messageIds: readonly string[];
}

export interface DeliveryReceipt extends DeliveryInput {
  readonly deliveredAt: number;
}

export interface RecordDeliveryResult {
  /** The stored receipt: this one, or the earlier one when the key was already recorded. */
  readonly receipt: DeliveryReceipt;
  readonly created: boolean;
}
