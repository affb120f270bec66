import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalStore } from '../../src/approval/approval-store.js';
import { createRedisApprovalStore } from '../../src/approval/redis-approval-store.js';
import { describeApprovalStoreConformance, makeRequest, testClock } from './approval-store-conformance.js';

const REDIS = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: 1 };
const runPrefix = `hermes-test:approval:${randomUUID()}:`;
let redis: Redis;
let second: Redis;
let storeCount = 0;

beforeAll(() => {
  redis = new Redis(REDIS);
  second = new Redis(REDIS);
});

afterAll(async () => {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${runPrefix}*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  await second.quit();
});

function freshPrefix(): string {
  storeCount += 1;
  return `${runPrefix}${storeCount}:`;
}

describeApprovalStoreConformance('redis', async (clock) =>
  createRedisApprovalStore({ redis, keyPrefix: freshPrefix(), now: clock.now }),
);

describe('redis approval store', () => {
  it('shares decisions between two connections (two processes)', async () => {
    const clock = testClock();
    const keyPrefix = freshPrefix();
    const a: ApprovalStore = createRedisApprovalStore({ redis, keyPrefix, now: clock.now });
    const b: ApprovalStore = createRedisApprovalStore({ redis: second, keyPrefix, now: clock.now });
    const request = makeRequest(clock);
    await a.open(request);
    expect(await b.open(makeRequest(clock))).toEqual({ request, coalesced: true });
    const results = await Promise.all([
      a.decide(request.id, { choice: 'once', userId: '42', decidedAt: clock.now() }),
      b.decide(request.id, { choice: 'deny', userId: '42', decidedAt: clock.now() }),
      a.decide(request.id, { choice: 'session', userId: '42', decidedAt: clock.now() }),
      b.decide(request.id, { choice: 'always', userId: '42', decidedAt: clock.now() }),
    ]);
    expect(results.filter((result) => result.status === 'recorded')).toHaveLength(1);
    expect(await a.outcome(request.id)).toEqual(await b.outcome(request.id));
  });

  it('puts a TTL on every key it writes', async () => {
    const clock = testClock();
    const keyPrefix = freshPrefix();
    const store = createRedisApprovalStore({ redis, keyPrefix, now: clock.now, retentionMs: 60_000 });
    const request = makeRequest(clock);
    await store.open(request);
    await store.decide(request.id, { choice: 'session', userId: '42', decidedAt: clock.now() });
    await store.setSessionYolo(request.sessionKey, true);
    await store.open(makeRequest(clock, { command: 'still pending' }));
    // Follow the cursor to the end: one SCAN step covers only part of a database with other keys.
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    expect(keys.length).toBeGreaterThanOrEqual(5);
    for (const key of keys) {
      const ttl = await redis.pttl(key);
      expect(ttl, key).toBeGreaterThan(0);
    }
    const requestTtl = await redis.pttl(`${keyPrefix}req:${request.id}`);
    expect(requestTtl).toBeLessThanOrEqual(request.expiresAt - clock.now() + 60_000);
  });

  it('reports a Redis failure as approval_store_failed', async () => {
    const broken = new Redis({
      host: '127.0.0.1',
      port: 1,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    broken.on('error', () => {});
    const store = createRedisApprovalStore({ redis: broken, keyPrefix: freshPrefix() });
    await expect(store.outcome('x')).rejects.toMatchObject({ code: 'approval_store_failed' });
    await expect(store.open(makeRequest(testClock()))).rejects.toMatchObject({
      code: 'approval_store_failed',
    });
    broken.disconnect();
  });
});
