import type { JsonValue } from '../queue/turn-queue.js';

export type EventListener = (event: JsonValue) => void;

/** How a published event is addressed beyond its channel. */
export interface PublishRouting {
  /**
   * The keys listeners route the event by (a turn's inbound event ids). When every one of them is
   * claimed in this process (`claimKey`), the event is delivered here and nowhere else.
   */
  readonly keys: readonly string[];
}

/**
 * Carries turn events (progress, final answers, parked prompts, failures) from whichever process
 * ran the turn to the process that owns the user's connection. Channels are session keys or
 * platform channels. Delivery is best effort and live: a subscriber gets what is published while
 * it listens.
 */
export interface EventBus {
  publish(channel: string, event: JsonValue, routing?: PublishRouting): Promise<void>;
  /** Resolves once the subscription is active; the returned function unsubscribes. */
  subscribe(channel: string, listener: EventListener): Promise<() => Promise<void>>;
  /**
   * Declares that the events on `channel` routed by `key` are consumed by a listener of this
   * process alone (a key minted here, such as an API request's id), so an event whose keys are
   * all claimed needs no trip through another process. The returned function gives the claim up.
   */
  claimKey(channel: string, key: string): () => void;
  close(): Promise<void>;
}
