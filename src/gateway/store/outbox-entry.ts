import type { JsonValue } from '../../lib/is-json-value.js';

/*
 * The chat outbox's shapes: answers, failure notices and prompts a gateway must deliver even when
 * it missed their live event (see GatewayStore.enqueueOutbox and docs/operations-delivery.md).
 */

export type OutboxKind = 'final' | 'failed' | 'parked';

/** What a `parked` entry shows: the parked turn's prompt, as its event carries it. */
export interface OutboxPrompt {
  /** `approval` or `clarify`. */
  readonly reason: string;
  readonly parkId: string;
  /** The approval request or the clarify question (JSON). */
  readonly payload: JsonValue;
}
export type OutboxOutcome = 'delivered' | 'abandoned';

/** Where an outbox entry goes: the turn's chat (the shape of a turn event's origin). */
export interface OutboxOrigin {
  readonly platform: string;
  readonly chatType: string;
  readonly chatId: string;
  readonly threadId?: string | undefined;
  readonly userId?: string | undefined;
  readonly userName?: string | undefined;
  readonly replyToMessageId?: string | undefined;
}

export interface OutboxInput {
  /** `<kind>:<turnId>` (see `outboxId`). */
  readonly id: string;
  readonly platform: string;
  readonly sessionKey: string;
  readonly turnId: string;
  /** The inbound event ids the turn handled. */
  readonly eventIds?: readonly string[] | undefined;
  readonly origin: OutboxOrigin;
  readonly kind: OutboxKind;
  /** The answer (`final`) or the failure message (`failed`), as the event carries it; '' for `parked`. */
  readonly text: string;
  /** Required for `parked` entries, absent otherwise. */
  readonly prompt?: OutboxPrompt | undefined;
  /** Defaults to the store clock. */
  readonly createdAt?: number;
}

export interface OutboxEntry {
  readonly id: string;
  readonly platform: string;
  readonly sessionKey: string;
  readonly turnId: string;
  readonly eventIds: readonly string[];
  readonly origin: OutboxOrigin;
  readonly kind: OutboxKind;
  readonly text: string;
  readonly prompt: OutboxPrompt | undefined;
  readonly createdAt: number;
  readonly attempts: number;
  readonly lastAttemptAt: number | undefined;
  /** Undefined while still to deliver. */
  readonly completed: { readonly outcome: OutboxOutcome; readonly at: number } | undefined;
}

export interface ListOutboxOptions {
  readonly platform: string;
  /** Only entries created at or before this time. */
  readonly olderThan?: number;
  /** Default 100, at most 1000. */
  readonly limit?: number;
}

export interface RecentOutboxOptions {
  readonly state: 'pending' | 'abandoned';
  /** Default 20, at most 200. */
  readonly limit?: number;
}

/**
 * The outbox id of a turn's answer or failure notice (by turn id), or of a parked turn's prompt
 * (by park id: one turn may park more than once).
 */
export function outboxId(kind: OutboxKind, turnOrParkId: string): string {
  return `${kind}:${turnOrParkId}`;
}
