import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

export const REDIS_URL = 'redis://127.0.0.1:6379';

/** Settings every test worker shares (the same on all workers, small for fast recovery). */
export const TEST_QUEUE_TIMING = { lockDurationMs: 2_000, stalledIntervalMs: 1_000 } as const;

/** A unique key prefix per test run and queue, so tests never see each other's keys. */
export function uniquePrefix(): string {
  return `hermes-test:queue:${randomUUID()}`;
}

export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

export async function deleteUnder(redis: Redis, prefix: string): Promise<void> {
  const keys = await keysUnder(redis, prefix);
  for (let index = 0; index < keys.length; index += 500) await redis.del(...keys.slice(index, index + 500));
}
