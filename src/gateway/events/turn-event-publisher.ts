import type { Logger } from 'pino';
import type { InboxItem, JsonValue } from '../queue/turn-queue.js';
import { type OutboxKind, type OutboxPrompt, outboxId } from '../store/outbox-entry.js';
import type { OutboxStore } from '../store/outbox-store.js';
import type { TurnFailureStore } from '../store/turn-failure-store.js';
import type { TurnEvents } from '../turn/turn-events.js';
import { parseTurnOrigin, type TurnOrigin } from '../turn/turn-origin.js';
import type { EventBus } from './event-bus.js';
import { type EventOrigin, type GatewayEvent, platformChannel } from './gateway-event.js';

/** How long streamed text is collected before it is published, ms. */
const TEXT_FLUSH_MS = 25;

/**
 * Platforms answered directly by the connection that asked (never through a chat adapter).
 * Webhook runs are not among them: their results are delivered from the outbox too (by the
 * webhook platform of whichever gateway process is up).
 */
const DIRECT_PLATFORMS = new Set(['api_server']);

/** Where answers for chat platforms are recorded before they are published. */
export type OutboxWriter = Pick<OutboxStore, 'enqueueOutbox'>;

/** Where failed turns are recorded for the operator dashboard (any platform, any process). */
export type FailureWriter = Pick<TurnFailureStore, 'recordTurnFailure'>;

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

/** The platform part of a session key (`agent:main:<platform>:…`), or `unknown`. */
function platformOfKey(sessionKey: string): string {
  const platform = sessionKey.split(':')[2];
  return platform === undefined || platform === '' ? 'unknown' : platform.slice(0, 64);
}

/**
 * Publishes the runner's events on the bus, tagged with the inbound event ids of the turn that
 * produced them (the runner puts them on every event). Passed explicitly rather than through
 * AsyncLocalStorage: on Node 20 an active AsyncLocalStorage adds a hook to every promise in the
 * process, about tripling the cost of each `await`.
 */
export function createTurnEventPublisher(
  bus: EventBus,
  logger: Logger,
  outbox?: OutboxWriter,
  failures?: FailureWriter,
) {
  /** A failed turn, for the dashboard's list; a store failure is logged and changes nothing else. */
  async function noteFailure(
    event: GatewayEvent & { type: 'failed' },
    platform: string | undefined,
    code: string,
  ) {
    if (failures === undefined || event.turnId === '') return;
    const where = event.origin?.platform ?? platform ?? platformOfKey(event.sessionKey);
    try {
      await failures.recordTurnFailure({
        turnId: event.turnId,
        sessionKey: event.sessionKey,
        platform: where,
        code,
        message: event.message,
      });
    } catch (error) {
      logger.warn(
        { sessionKey: event.sessionKey, turnId: event.turnId, err: (error as Error).message },
        'failed turn not recorded for the dashboard',
      );
    }
  }

  /**
   * A chat platform's answer, failure notice or prompt is written to the outbox before its live
   * event goes out: if the gateway owning the chat misses the event (down, restarting, bus
   * hiccup), its outbox sweep delivers it. A store failure is logged and the event still published.
   */
  async function record(
    kind: OutboxKind,
    event: { turnId: string; sessionKey: string; origin?: EventOrigin },
    eventIdList: string[],
    text: string,
    prompt?: OutboxPrompt,
  ): Promise<void> {
    const origin = event.origin;
    if (outbox === undefined || origin === undefined || event.turnId === '') return;
    if (DIRECT_PLATFORMS.has(origin.platform)) return;
    try {
      await outbox.enqueueOutbox({
        id: outboxId(kind, prompt?.parkId ?? event.turnId),
        platform: origin.platform,
        sessionKey: event.sessionKey,
        turnId: event.turnId,
        eventIds: eventIdList,
        origin,
        kind,
        text,
        ...(prompt !== undefined ? { prompt } : {}),
      });
    } catch (error) {
      logger.error(
        { sessionKey: event.sessionKey, turnId: event.turnId, err: (error as Error).message },
        'answer not recorded in the outbox; it depends on the live event alone',
      );
    }
  }

  /**
   * One bus message per event: on its platform's channel (every listener of a platform routes by
   * event id or chat), or on the session's channel when the event has no origin. Routed by the
   * event ids, so a request waiting in this process gets it without a trip through Redis.
   */
  async function publish(event: GatewayEvent, platform?: string): Promise<void> {
    const target = event.origin?.platform ?? platform;
    const channel = target === undefined ? event.sessionKey : platformChannel(target);
    await bus
      .publish(channel, event as unknown as JsonValue, { keys: event.eventIds })
      .catch((error: unknown) => {
        logger.error(
          { sessionKey: event.sessionKey, turnId: event.turnId, channel, err: (error as Error).message },
          'event publish failed',
        );
      });
  }

  const eventIds = (event: { readonly eventIds?: readonly string[] }) => [...(event.eventIds ?? [])];

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
      const { turnId, sessionKey, origin, eventIds: _ids, ...progress } = event;
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
            eventIds: eventIds(event),
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
        eventIds: eventIds(event),
        ...withOrigin(origin),
        progress: progress as unknown as Record<string, JsonValue>,
      });
    },
    final: async (event) => {
      await flushText(event.turnId);
      const final: GatewayEvent = {
        type: 'final',
        turnId: event.turnId,
        sessionKey: event.sessionKey,
        eventIds: eventIds(event),
        ...withOrigin(event.origin),
        text: event.text,
        ...(event.usage !== undefined ? { usage: event.usage } : {}),
      };
      await record('final', final, final.eventIds, event.text);
      return publish(final);
    },
    parked: async (event) => {
      await flushText(event.turnId);
      const parked: Extract<GatewayEvent, { type: 'parked' }> = {
        type: 'parked',
        turnId: event.turnId,
        sessionKey: event.sessionKey,
        eventIds: eventIds(event),
        ...withOrigin(event.origin),
        reason: event.reason,
        parkId: event.parkId,
        payload: (event.payload ?? null) as JsonValue,
      };
      await record('parked', parked, parked.eventIds, '', {
        reason: parked.reason,
        parkId: parked.parkId,
        payload: parked.payload as JsonValue,
      });
      return publish(parked);
    },
    failed: async (event) => {
      await flushText(event.turnId);
      const failed: GatewayEvent & { type: 'failed' } = {
        type: 'failed',
        turnId: event.turnId,
        sessionKey: event.sessionKey,
        eventIds: eventIds(event),
        ...withOrigin(event.origin),
        code: event.code,
        message: event.message,
      };
      // An interrupted turn shows nothing (the message that interrupted it gets the answer).
      if (event.code !== 'interrupted') {
        await record('failed', failed, failed.eventIds, event.message);
        await noteFailure(failed, event.platform, event.code);
      }
      return publish(failed, event.platform);
    },
  };

  /**
   * Tells the chat that its messages were given up on after every retry failed. The origin comes
   * from the items themselves, so the notice reaches chat platforms (and the outbox) like any
   * other outcome. Never silence.
   */
  async function givenUp(sessionKey: string, items: readonly InboxItem[], message: string): Promise<void> {
    const origin = items.map((item) => parseTurnOrigin(item.payload)).find((parsed) => parsed.ok);
    const first = items[0]?.eventId ?? 'unknown';
    const failed: GatewayEvent & { type: 'failed' } = {
      type: 'failed',
      turnId: `given-up-${first}`.replace(/[^A-Za-z0-9_.:-]/g, '_').slice(0, 200),
      sessionKey,
      eventIds: items.map((item) => item.eventId),
      ...withOrigin(origin?.ok === true ? origin.origin : undefined),
      code: 'internal',
      message,
    };
    await record('failed', failed, failed.eventIds, message);
    await noteFailure(failed, undefined, 'given_up');
    await publish(failed);
  }

  return { events, publish, givenUp };
}
