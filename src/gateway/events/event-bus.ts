import type { JsonValue } from '../queue/turn-queue.js';

export type EventListener = (event: JsonValue) => void;

/**
 * Carries turn events (progress, final answers, parked prompts, failures) from whichever process
 * ran the turn to the process that owns the user's connection. Channels are session keys.
 * Delivery is best effort and live: a subscriber gets what is published while it listens.
 */
export interface EventBus {
  publish(channel: string, event: JsonValue): Promise<void>;
  /** Resolves once the subscription is active; the returned function unsubscribes. */
  subscribe(channel: string, listener: EventListener): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
