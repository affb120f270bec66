import type {
  ListOutboxOptions,
  OutboxEntry,
  OutboxInput,
  OutboxOutcome,
  RecentOutboxOptions,
} from './outbox-entry.js';

/*
 * One area of the gateway's durable state (see GatewayStore in gateway-store.ts, the whole).
 * Every method returns a Promise so a networked database can implement it later. Times are
 * epoch milliseconds from the store's clock; optional values are `undefined` when absent, and in
 * patches `null` clears a value while `undefined` leaves it alone.
 */

/** The chat outbox: answers, failure notices and prompts a chat platform must deliver. */
export interface OutboxStore {
  /**
   * Records an answer (or failure notice) a chat platform must deliver, before its live event is
   * published. Idempotent on `id`: true when this call stored it, false when the id was known
   * (the first record, and its state, are kept).
   */
  enqueueOutbox(input: OutboxInput): Promise<boolean>;
  getOutbox(id: string): Promise<OutboxEntry | undefined>;
  /** Entries of a platform still to deliver, oldest first. */
  listOutbox(options: ListOutboxOptions): Promise<OutboxEntry[]>;
  /**
   * For operators, every platform at once: entries still to deliver (`pending`, oldest first) or
   * given up on (`abandoned`, most recently given up first).
   */
  listRecentOutbox(options: RecentOutboxOptions): Promise<OutboxEntry[]>;
  /** Counts one delivery attempt of a pending entry; returns the attempts so far (0 when unknown or done). */
  markOutboxAttempt(id: string): Promise<number>;
  /** Marks an entry done (`delivered` by default); true only for the first caller. */
  completeOutbox(id: string, outcome?: OutboxOutcome): Promise<boolean>;
}
