import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventBus } from '../../../src/gateway/events/event-bus.js';
import { createRedisEventBus } from '../../../src/gateway/events/redis-event-bus.js';
import type { JsonValue } from '../../../src/gateway/queue/turn-queue.js';
import { silentLogger } from '../../helpers/test-config.js';
import { waitFor } from '../e2e/gateway-kit.js';
import { REDIS_URL, uniquePrefix } from '../queue/redis-test-kit.js';

const CHANNEL = 'platform:api_server';
const event = (eventIds: string[], text = 'hi'): JsonValue => ({
  type: 'final',
  turnId: 't1',
  eventIds,
  text,
});

describe('redis event bus', () => {
  let prefix: string;
  let buses: EventBus[];
  let spy: Redis;
  /** What crossed Redis on the test channel, seen by a plain subscriber. */
  let onRedis: string[];

  beforeEach(async () => {
    prefix = `${uniquePrefix()}:events:`;
    buses = [];
    onRedis = [];
    spy = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    spy.on('message', (_channel: string, message: string) => onRedis.push(message));
    await spy.subscribe(prefix + CHANNEL);
  });
  afterEach(async () => {
    for (const bus of buses) await bus.close();
    spy.disconnect();
  });
  const bus = () => {
    const created = createRedisEventBus({ url: REDIS_URL, logger: silentLogger, prefix });
    buses.push(created);
    return created;
  };

  it('carries events between processes (buses) through Redis', async () => {
    const gateway = bus();
    const worker = bus();
    const seen: JsonValue[] = [];
    await gateway.subscribe(CHANNEL, (e) => seen.push(e));
    await worker.publish(CHANNEL, event(['api:1']), { keys: ['api:1'] });
    await waitFor(() => seen.length === 1 && onRedis.length === 1);
    expect(seen).toEqual([event(['api:1'])]);
  });

  it('delivers an event whose keys are all claimed here in-process, without Redis', async () => {
    const gateway = bus();
    const seen: JsonValue[] = [];
    await gateway.subscribe(CHANNEL, (e) => seen.push(e));
    const release = gateway.claimKey(CHANNEL, 'api:1');
    const sent = event(['api:1']);
    await gateway.publish(CHANNEL, sent, { keys: ['api:1'] });
    expect(seen).toEqual([sent]);
    expect(seen[0]).not.toBe(sent); // a copy, as if it had crossed Redis

    // A marker through Redis afterwards: once it is seen, the local event would have been too.
    await gateway.publish(CHANNEL, event(['other']), { keys: ['other'] });
    await waitFor(() => onRedis.length === 1);
    expect(onRedis.map((m) => JSON.parse(m))).toEqual([event(['other'])]);
    await waitFor(() => seen.length === 2);
    expect(seen).toHaveLength(2); // the claimed event came exactly once

    release();
    await gateway.publish(CHANNEL, event(['api:1'], 'after release'), { keys: ['api:1'] });
    await waitFor(() => onRedis.length === 2);
  });

  it('goes through Redis when one key is not claimed here, and the local listener gets it once', async () => {
    const gateway = bus();
    const worker = bus();
    const seen: JsonValue[] = [];
    await gateway.subscribe(CHANNEL, (e) => seen.push(e));
    gateway.claimKey(CHANNEL, 'api:1');
    // A turn that handled a request waiting here and one waiting in another gateway.
    await gateway.publish(CHANNEL, event(['api:1', 'api:elsewhere']), { keys: ['api:1', 'api:elsewhere'] });
    await waitFor(() => seen.length === 1 && onRedis.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toHaveLength(1);
    // A claim in another process changes nothing here, and vice versa.
    worker.claimKey(CHANNEL, 'api:2');
    await gateway.publish(CHANNEL, event(['api:2']), { keys: ['api:2'] });
    await waitFor(() => seen.length === 2 && onRedis.length === 2);
  });

  it('without routing, or on another channel, a claim changes nothing', async () => {
    const gateway = bus();
    gateway.claimKey(CHANNEL, 'api:1');
    gateway.claimKey('platform:telegram', 'api:2');
    await gateway.publish(CHANNEL, event(['api:1']));
    await gateway.publish(CHANNEL, event(['api:2']), { keys: ['api:2'] });
    await gateway.publish(CHANNEL, event([]), { keys: [] });
    await waitFor(() => onRedis.length === 3);
  });

  it('counts claims of one key: it stays claimed until every claim is given up', async () => {
    const gateway = bus();
    const first = gateway.claimKey(CHANNEL, 'api:1');
    const second = gateway.claimKey(CHANNEL, 'api:1');
    first();
    first(); // giving up twice is harmless
    await gateway.publish(CHANNEL, event(['api:1']), { keys: ['api:1'] });
    second();
    await gateway.publish(CHANNEL, event(['api:1'], 'now through Redis'), { keys: ['api:1'] });
    await waitFor(() => onRedis.length === 1);
    expect(JSON.parse(onRedis[0] ?? '{}')).toMatchObject({ text: 'now through Redis' });
  });

  it('a local listener that throws does not fail the publish nor starve the others', async () => {
    const gateway = bus();
    const seen: JsonValue[] = [];
    await gateway.subscribe(CHANNEL, () => {
      throw new Error('listener bug');
    });
    await gateway.subscribe(CHANNEL, (e) => seen.push(e));
    gateway.claimKey(CHANNEL, 'api:1');
    await expect(gateway.publish(CHANNEL, event(['api:1']), { keys: ['api:1'] })).resolves.toBeUndefined();
    expect(seen).toHaveLength(1);
  });
});
