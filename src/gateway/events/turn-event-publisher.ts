import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { JsonValue, TurnContext, TurnHandler } from '../queue/turn-queue.js';
import type { TurnEvents } from '../turn/turn-events.js';
import type { TurnOrigin } from '../turn/turn-origin.js';
import type { EventBus } from './event-bus.js';
import { type EventOrigin, type GatewayEvent, platformChannel } from './gateway-event.js';

/** Platforms whose answers are delivered by a chat adapter listening on its platform channel. */
/** How long streamed text is collected before it is published, ms. */
const TEXT_FLUSH_MS = 25;

const DIRECT_PLATFORMS = new Set(['api_server', 'webhook']);

function routeOf(origin: TurnOrigin | undefined): EventOrigin | undefined {
  if (origin === undefined) return undefined;
  return {
    platform: origin.platform,
    chatType: origin.chatType,
    chatId: origin.chatId,
    ...(origin.threadId !== undefined ? { threadId: origin.threadId } : {}),
    ...(origin.userId !== undefined ? { userId: origin.userId } : {}),
    ...(origin.userName !== undefined ? { userName: origin.userName } : {}),
    ...(origin.replyToMessageId !== undefined ? { replyToMessageId: origin.replyToMessageId } : {}),
  };
}

/**
 * Publishes the runner's events on the bus, tagged with the inbound event ids of the turn that
 * produced them. The ids come from the queue's turn context through AsyncLocalStorage, so the
 * runner needs to know nothing about them.
 */
export function createTurnEventPublisher(bus: EventBus, logger: Logger) {
  const current = new AsyncLocalStorage<string[]>();

  async function publish(event: GatewayEvent): Promise<void> {
    const channels = [event.sessionKey];
    if (event.origin !== undefined && !DIRECT_PLATFORMS.has(event.origin.platform)) {
      channels.push(platformChannel(event.origin.platform));
    }
    for (const channel of channels) {
      await bus.publish(channel, event as unknown as JsonValue).catch((error: unknown) => {
        logger.error(
          { sessionKey: event.sessionKey, turnId: event.turnId, channel, err: (error as Error).message },
          'event publish failed',
        );
      });
    }
  }

  const eventIds = () => [...(current.getStore() ?? [])];

  // Streamed text is coalesced per turn for a few milliseconds: one bus message per burst
  // instead of one per token (each is a Redis PUBLISH in scale-out mode). Anything else the turn
  // emits flushes it first, so order is kept.
  const pendingText = new Map<
    string,
    {
      base: Omit<Extract<GatewayEvent, { type: 'progress' }>, 'progress'>;
      text: string;
      timer: NodeJS.Timeout;
    }
  >();
  async function flushText(turnId: string): Promise<void> {
    const entry = pendingText.get(turnId);
    if (entry === undefined) return;
    pendingText.delete(turnId);
    clearTimeout(entry.timer);
    await publish({ ...entry.base, progress: { kind: 'text_delta', text: entry.text } });
  }
  const withOrigin = (origin: TurnOrigin | undefined) => {
    const route = routeOf(origin);
    return route === undefined ? {} : { origin: route };
  };

  const events: TurnEvents = {
    progress: async (event) => {
      const { turnId, sessionKey, origin, ...progress } = event;
      if (progress.kind === 'text_delta') {
        const waiting = pendingText.get(turnId);
        if (waiting !== undefined) {
          waiting.text += progress.text;
          return;
        }
        const entry = {
          base: {
            type: 'progress' as const,
            turnId,
            sessionKey,
            eventIds: eventIds(),
            ...withOrigin(origin),
          },
          text: progress.text,
          timer: setTimeout(() => void flushText(turnId), TEXT_FLUSH_MS),
        };
        pendingText.set(turnId, entry);
        return;
      }
      await flushText(turnId);
      return publish({
        type: 'progress',
        turnId,
        sessionKey,
        eventIds: eventIds(),
        ...withOrigin(origin),
        progress: progress as unknown as Record<string, JsonValue>,
      });
    },
    final: async (event) => {
      await flushText(event.turnId);
      return publish({
        type: 'final',
        turnId: event.turnId,
        sessionKey: event.sessionKey,
        eventIds: eventIds(),
        ...withOrigin(event.origin),
        text: event.text,
      });
    },
    parked: async (event) => {
      await flushText(event.turnId);
      return publish({
        type: 'parked',
        turnId: event.turnId,
        sessionKey: event.sessionKey,
        eventIds: eventIds(),
        ...withOrigin(event.origin),
        reason: event.reason,
        parkId: event.parkId,
        payload: (event.payload ?? null) as JsonValue,
      });
    },
    failed: async (event) => {
      await flushText(event.turnId);
      return publish({
        type: 'failed',
        turnId: event.turnId,
        sessionKey: event.sessionKey,
        eventIds: eventIds(),
        ...withOrigin(event.origin),
        code: event.code,
        message: event.message,
      });
    },
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
