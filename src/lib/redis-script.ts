import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Lua script with its SHA1, run by EVALSHA with a fallback to EVAL when the server does not
 * know it yet (after a restart or SCRIPT FLUSH). Not ioredis `defineCommand`: that sends EVAL with
 * the whole script as the first call on every connection, and the queue's round-trip tests (and
 * its benchmarks) count on one EVALSHA per script call.
 */
export interface RedisScript {
  readonly name: string;
  readonly lua: string;
  readonly sha: string;
}

export function defineScript(name: string, lua: string): RedisScript {
  return { name, lua, sha: createHash('sha1').update(lua).digest('hex') };
}

export async function runScript(
  redis: Redis,
  script: RedisScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  try {
    return await redis.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes('NOSCRIPT')) throw error;
    return redis.eval(script.lua, keys.length, ...keys, ...args);
  }
}
