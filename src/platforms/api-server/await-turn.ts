import type { EventBus } from '../../gateway/events/event-bus.js';
import { type GatewayEvent, gatewayEventSchema } from '../../gateway/events/gateway-event.js';

export type TurnEnd = Extract<GatewayEvent, { type: 'final' | 'failed' | 'parked' }> | { type: 'timeout' };

/**
 * Listens on a session's channel for the events of the turn that handles `eventId`: progress is
 * passed to `onProgress`, and the promise settles with the turn's outcome (or a timeout).
 * Subscribe BEFORE submitting the item, so no event can be missed.
 */
export async function watchTurn(options: {
  readonly bus: EventBus;
  readonly sessionKey: string;
  readonly eventId: string;
  readonly timeoutMs: number;
  readonly onProgress?: (event: Extract<GatewayEvent, { type: 'progress' }>) => void;
}): Promise<{ readonly done: Promise<TurnEnd>; cancel(): Promise<void> }> {
  let settle: (end: TurnEnd) => void = () => {};
  const done = new Promise<TurnEnd>((resolve) => {
    settle = resolve;
  });
  let finished = false;
  const unsubscribe = await options.bus.subscribe(options.sessionKey, (raw) => {
    if (finished) return;
    const parsed = gatewayEventSchema.safeParse(raw);
    if (!parsed.success || !parsed.data.eventIds.includes(options.eventId)) return;
    const event = parsed.data;
    if (event.type === 'progress') {
      options.onProgress?.(event);
      return;
    }
    finish(event);
  });
  const timer = setTimeout(() => finish({ type: 'timeout' }), options.timeoutMs);
  function finish(end: TurnEnd): void {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    void unsubscribe();
    settle(end);
  }
  return {
    done,
    async cancel() {
      finished = true;
      clearTimeout(timer);
      await unsubscribe();
    },
  };
}
