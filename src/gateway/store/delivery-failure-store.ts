/*
 * One area of the gateway's durable state (see GatewayStore in gateway-store.ts, the whole).
 * Every method returns a Promise so a networked database can implement it later. Times are
 * epoch milliseconds from the store's clock; optional values are `undefined` when absent, and in
 * patches `null` clears a value while `undefined` leaves it alone.
 */

/** Delivery failures: answers that could not be delivered, told to the chat on its next contact. */
export interface DeliveryFailureStore {
  /** Remembers an answer that could not be delivered, to tell the chat on the next contact. */
  recordDeliveryFailure(input: DeliveryFailureInput): Promise<DeliveryFailure>;
  /** Removes and returns the failures recorded for a chat (oldest first), atomically: each is taken once. */
  takeDeliveryFailures(platform: string, chatId: string): Promise<DeliveryFailure[]>;
}

export interface DeliveryFailureInput {
  readonly platform: string;
  readonly chatId: string;
  readonly sessionKey: string;
  /** The turn (or other receipt key) whose answer was lost. */
  readonly turnId: string;
  /** Short description for logs and operators (never shown verbatim to users). */
  readonly error: string;
  /** Defaults to the store clock. */
  readonly at?: number;
}

export interface DeliveryFailure {
  readonly id: number;
  readonly platform: string;
  readonly chatId: string;
  readonly sessionKey: string;
  readonly turnId: string;
  readonly error: string;
  readonly at: number;
}
