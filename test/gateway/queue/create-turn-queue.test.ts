import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createTurnQueue } from '../../../src/gateway/queue/create-turn-queue.js';
import { deleteUnder, REDIS_URL, uniquePrefix } from './redis-test-kit.js';

const logger = pino({ level: 'silent' });
const prefix = uniquePrefix();

afterAll(async () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  await deleteUnder(redis, prefix);
  await redis.quit();
});

describe('createTurnQueue', () => {
  it('is embedded without Redis and BullMQ with a Redis URL', async () => {
    const embedded = createTurnQueue({ logger, redis: undefined });
    const bullmq = createTurnQueue({ logger, redis: REDIS_URL, bullmq: { prefix } });
    try {
      expect([embedded.kind, bullmq.kind]).toEqual(['embedded', 'bullmq']);
      expect(await bullmq.health()).toEqual({ ok: true });
    } finally {
      await Promise.all([embedded.close(), bullmq.close()]);
    }
  });
});
