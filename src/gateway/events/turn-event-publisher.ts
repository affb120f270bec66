import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { JsonValue, TurnContext, TurnHandler } from '../queue/turn-queue.js';
import type { TurnEvents } from '../turn/turn-events.js';
import type { EventBus } from './event-bus.js';
import type { GatewayEvent } from './gateway-event.js';

/**
 * Publishes the runner's events on the bus, tagged with the inbound event ids of the turn that
 * produced them. The ids come from the queue's turn context through AsyncLocalStorage, so the
 * runner needs to know nothing about them.
 */
export function createTurnEventPublisher(bus: EventBus, logger: Logger) {
  const current = new AsyncLocalStorage<string[]>();

  function publish(event: GatewayEvent): Promise<void> {
    return bus.publish(event.sessionKey, event as unknown as JsonValue).catch((error: unknown) => {
      logger.error(
        { sessionKey: event.sessionKey, turnId: event.turnId, err: (error as Error).message },
        'event publish failed',
      );
    });
  }

  const eventIds = () => [...(current.getStore() ?? [])];

  const events: TurnEvents = {
    progress: (event) => {
      const { turnId, sessionKey, origin: _origin, ...progress } = event;
      return publish({
        type: 'progress',
        turnId,
        sessionKey,
        eventIds: eventIds(),
        progress: progress as unknown as Record<string, JsonValue>,
      });
    },
    final: (event) =>
      publish({
        type: 'final',
        turnId: event.turnId,
        sessionKey: event.sessionKey,
        eventIds: eventIds(),
        text: event.text,
      }),
    parked: (event) =>
      publish({
        type: 'parked',
        turnId: event.turnId,
        sessionKey: event.sessionKey,
        eventIds: eventIds(),
        reason: event.reason,
        parkId: event.parkId,
        payload: (event.payload ?? null) as JsonValue,
      }),
    failed: (event) =>
      publish({
        type: 'failed',
        turnId: event.turnId,
        sessionKey: event.sessionKey,
        eventIds: eventIds(),
        code: event.code,
        message: event.message,
      }),
  };

  /** Wraps the runner's handler so events emitted during a turn carry its items' event ids. */
  function wrap(handler: TurnHandler): TurnHandler {
    return (turn: TurnContext) => {
      const ids = turn.items.map((item) => item.eventId);
      const tracked: TurnContext = {
        turnId: turn.turnId,
        sessionKey: turn.sessionKey,
        items: turn.items,
        attempt: turn.attempt,
        signal: turn.signal,
        takeSteering: async () => {
          const steered = await turn.takeSteering();
          for (const item of steered) ids.push(item.eventId);
          return steered;
        },
      };
      return current.run(ids, () => handler(tracked));
    };
  }

  return { events, wrap, publish };
}
