import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryEventBus } from '../../../src/gateway/events/memory-event-bus.js';
import { createTurnEventPublisher } from '../../../src/gateway/events/turn-event-publisher.js';
import type { InboxItem, JsonValue } from '../../../src/gateway/queue/turn-queue.js';
import {
  createSqliteGatewayStore,
  type SqliteGatewayStore,
} from '../../../src/gateway/store/sqlite-gateway-store.js';
import { makeTempHome, silentLogger } from '../../helpers/test-config.js';

const SESSION = 'agent:main:test:dm:c1';
const item = (eventId: string, payload?: JsonValue): InboxItem => ({
  sessionKey: SESSION,
  eventId,
  kind: 'message',
  text: 'hello',
  receivedAt: 1,
  ...(payload !== undefined ? { payload } : {}),
});
const origin = { platform: 'test', chatType: 'dm', chatId: 'c1', userId: 'u1', unattended: false };

describe('turn event publisher: messages given up after retries', () => {
  let temp: { home: string; cleanup: () => void };
  let store: SqliteGatewayStore;
  beforeEach(() => {
    temp = makeTempHome();
    store = createSqliteGatewayStore({ path: join(temp.home, 'state.db'), logger: silentLogger });
  });
  afterEach(async () => {
    await store.close();
    temp.cleanup();
  });

  it('reach the chat platform with their origin and are kept in the outbox', async () => {
    const bus = createMemoryEventBus();
    const seen: JsonValue[] = [];
    await bus.subscribe('platform:test', (event) => seen.push(event));
    const publisher = createTurnEventPublisher(bus, silentLogger, store);
    await publisher.givenUp(SESSION, [item('test:e1', origin), item('test:e2', origin)], 'Sorry, giving up.');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      type: 'failed',
      sessionKey: SESSION,
      eventIds: ['test:e1', 'test:e2'],
      origin: { platform: 'test', chatId: 'c1' },
      message: 'Sorry, giving up.',
    });
    const waiting = await store.listOutbox({ platform: 'test' });
    expect(waiting.map((entry) => entry.text)).toEqual(['Sorry, giving up.']);
  });

  it('still goes out on the session channel when no item carries a usable origin', async () => {
    const bus = createMemoryEventBus();
    const seen: JsonValue[] = [];
    await bus.subscribe(SESSION, (event) => seen.push(event));
    const publisher = createTurnEventPublisher(bus, silentLogger, store);
    await publisher.givenUp(SESSION, [item('api:1', { nonsense: true })], 'Sorry.');
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toHaveProperty('origin');
  });
});
