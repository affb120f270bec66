import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { JsonValue } from '../queue/turn-queue.js';
import type { EventBus, EventListener } from './event-bus.js';

export interface RedisEventBusOptions {
  readonly url: string;
  readonly logger: Logger;
  readonly prefix?: string;
}

/**
 * Redis pub/sub bus for the scale-out mode: workers publish, the gateway process listens. An
 * event whose routing keys are all claimed in this process (an API request waiting here for the
 * turn this process runs) is handed to the local listeners directly, as a JSON copy, and never
 * reaches Redis: nobody elsewhere waits for it. Anything else goes through Redis, where this
 * process' own listeners get it too.
 */
export function createRedisEventBus(options: RedisEventBusOptions): EventBus {
  const prefix = options.prefix ?? 'hermes:events:';
  const publisher = new Redis(options.url, { maxRetriesPerRequest: 3 });
  const subscriber = new Redis(options.url, { maxRetriesPerRequest: null });
  for (const connection of [publisher, subscriber]) {
    connection.on('error', (error: Error) =>
      options.logger.warn({ err: error.message }, 'event bus redis error'),
    );
  }
  const listeners = new Map<string, Set<EventListener>>();
  const ready = new Map<string, Promise<unknown>>();
  subscriber.on('message', (channel: string, message: string) => {
    const set = listeners.get(channel);
    if (set === undefined) return;
    let event: JsonValue;
    try {
      event = JSON.parse(message) as JsonValue;
    } catch {
      options.logger.warn({ channel }, 'event bus: malformed message dropped');
      return;
    }
    for (const listener of [...set]) listener(event);
  });
  /** Claimed routing keys per full channel name, with how many claims each has. */
  const claims = new Map<string, Map<string, number>>();
  const claimedHere = (full: string, keys: readonly string[]) => {
    const claimed = claims.get(full);
    return claimed !== undefined && keys.length > 0 && keys.every((key) => claimed.has(key));
  };
  function deliverHere(full: string, message: string): void {
    for (const listener of [...(listeners.get(full) ?? [])]) {
      try {
        listener(JSON.parse(message) as JsonValue);
      } catch (error) {
        options.logger.warn({ channel: full, err: (error as Error).message }, 'event listener failed');
      }
    }
  }
  let closing: Promise<void> | undefined;
  return {
    async publish(channel, event, routing) {
      const full = prefix + channel;
      const message = JSON.stringify(event);
      if (routing !== undefined && closing === undefined && claimedHere(full, routing.keys)) {
        deliverHere(full, message);
        return;
      }
      await publisher.publish(full, message);
    },
    claimKey(channel, key) {
      const full = prefix + channel;
      let claimed = claims.get(full);
      if (claimed === undefined) {
        claimed = new Map();
        claims.set(full, claimed);
      }
      claimed.set(key, (claimed.get(key) ?? 0) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const current = claims.get(full);
        const count = current?.get(key) ?? 0;
        if (count > 1) current?.set(key, count - 1);
        else current?.delete(key);
        if (current?.size === 0) claims.delete(full);
      };
    },
    async subscribe(channel, listener) {
      const full = prefix + channel;
      let set = listeners.get(full);
      if (set === undefined) {
        set = new Set();
        listeners.set(full, set);
        ready.set(full, subscriber.subscribe(full));
      }
      set.add(listener);
      await ready.get(full);
      return async () => {
        const current = listeners.get(full);
        current?.delete(listener);
        if (current !== undefined && current.size === 0) {
          listeners.delete(full);
          ready.delete(full);
          await subscriber.unsubscribe(full).catch(() => undefined);
        }
      };
    },
    close() {
      closing ??= (async () => {
        listeners.clear();
        claims.clear();
        await Promise.all([
          publisher.quit().catch(() => publisher.disconnect()),
          subscriber.quit().catch(() => subscriber.disconnect()),
        ]);
      })();
      return closing;
    },
  };
}
