import type { TurnEnd, TurnWatcher } from '../../platforms/ingress.js';
import type { EventBus } from '../events/event-bus.js';
import { type GatewayEvent, gatewayEventSchema } from '../events/gateway-event.js';

interface Waiter {
  readonly onProgress: ((event: Extract<GatewayEvent, { type: 'progress' }>) => void) | undefined;
  readonly finish: (end: TurnEnd) => void;
}

export interface TurnWatcherOptions {
  /**
   * The event ids are minted in this process (an API request's random id), so no other process can
   * be waiting for them: each watched id is claimed on the bus (`EventBus.claimKey`) and the turns
   * this process runs for them answer in-process. Leave it off for ids that come from outside (a
   * webhook sender's delivery id may reach another gateway too).
   */
  readonly idsMintedHere?: boolean;
}

/**
 * One subscription to a platform's bus channel, shared by every request waiting for a turn:
 * events are routed to waiters by inbound event id in this process, so a request costs no
 * subscribe/unsubscribe round trip (in scale-out mode those are Redis commands).
 */
export function createTurnWatcher(
  bus: EventBus,
  channel: string,
  watcherOptions: TurnWatcherOptions = {},
): TurnWatcher {
  const waiters = new Map<string, Waiter>();
  let subscription: Promise<() => Promise<void>> | undefined;

  function route(raw: unknown): void {
    const parsed = gatewayEventSchema.safeParse(raw);
    if (!parsed.success) return;
    const event = parsed.data;
    for (const eventId of event.eventIds) {
      const waiter = waiters.get(eventId);
      if (waiter === undefined) continue;
      if (event.type === 'progress') waiter.onProgress?.(event);
      else waiter.finish(event);
    }
  }

  return {
    async watch(options) {
      subscription ??= bus.subscribe(channel, route);
      await subscription;
      let settle: (end: TurnEnd) => void = () => {};
      const done = new Promise<TurnEnd>((resolve) => {
        settle = resolve;
      });
      const release =
        watcherOptions.idsMintedHere === true ? bus.claimKey(channel, options.eventId) : () => {};
      const finish = (end: TurnEnd) => {
        release();
        if (waiters.get(options.eventId)?.finish !== finish) return;
        waiters.delete(options.eventId);
        clearTimeout(timer);
        settle(end);
      };
      const timer = setTimeout(() => finish({ type: 'timeout' }), options.timeoutMs);
      waiters.set(options.eventId, { onProgress: options.onProgress, finish });
      return {
        done,
        cancel() {
          if (waiters.get(options.eventId)?.finish === finish) waiters.delete(options.eventId);
          release();
          clearTimeout(timer);
        },
      };
    },
    async close() {
      for (const waiter of [...waiters.values()]) waiter.finish({ type: 'timeout' });
      if (subscription !== undefined) await (await subscription)();
    },
  };
}
