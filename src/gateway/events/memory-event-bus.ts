import type { JsonValue } from '../queue/turn-queue.js';
import type { EventBus, EventListener } from './event-bus.js';

/** The in-process bus of the embedded mode. Events are copied so listeners never share objects. */
export function createMemoryEventBus(): EventBus {
  const listeners = new Map<string, Set<EventListener>>();
  let closed = false;
  return {
    async publish(channel, event) {
      if (closed) return;
      const set = listeners.get(channel);
      if (set === undefined) return;
      for (const listener of [...set]) listener(structuredClone(event) as JsonValue);
    },
    async subscribe(channel, listener) {
      let set = listeners.get(channel);
      if (set === undefined) {
        set = new Set();
        listeners.set(channel, set);
      }
      set.add(listener);
      return async () => {
        const current = listeners.get(channel);
        current?.delete(listener);
        if (current?.size === 0) listeners.delete(channel);
      };
    },
    // Every listener is in this process already.
    claimKey: () => () => {},
    async close() {
      closed = true;
      listeners.clear();
    },
  };
}
