import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { JsonValue } from '../queue/turn-queue.js';
import type { EventBus, EventListener } from './event-bus.js';

export interface RedisEventBusOptions {
  readonly url: string;
  readonly logger: Logger;
  readonly prefix?: string;
}

/** Redis pub/sub bus for the scale-out mode: workers publish, the gateway process listens. */
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
  let closing: Promise<void> | undefined;
  return {
    async publish(channel, event) {
      await publisher.publish(prefix + channel, JSON.stringify(event));
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
        await Promise.all([
          publisher.quit().catch(() => publisher.disconnect()),
          subscriber.quit().catch(() => subscriber.disconnect()),
        ]);
      })();
      return closing;
    },
  };
}
