import { Redis } from 'ioredis';

export const REDIS_URL = 'redis://127.0.0.1:6379';

/** Deletes every key matching `pattern` (SCAN + DEL); returns how many were deleted. */
export async function deleteKeys(pattern: string): Promise<number> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
  return deleted;
}

/** The Redis server's version (`INFO server`), for the environment section. */
export async function redisVersion(): Promise<string | undefined> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  try {
    const info = await redis.info('server');
    return /redis_version:([^\r\n]+)/.exec(info)?.[1];
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}

/** How many keys match `pattern`, and how many of them never expire (no TTL). */
export async function countKeys(pattern: string): Promise<{ total: number; without_ttl: number }> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  let total = 0;
  let withoutTtl = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      total += keys.length;
      if (keys.length === 0) continue;
      const pipeline = redis.pipeline();
      for (const key of keys) pipeline.pttl(key);
      for (const [, ttl] of (await pipeline.exec()) ?? []) if (ttl === -1) withoutTtl += 1;
    } while (cursor !== '0');
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
  return { total, without_ttl: withoutTtl };
}
