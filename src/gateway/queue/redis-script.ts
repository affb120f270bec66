import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A Lua script with its SHA1, run by EVALSHA with a fallback to EVAL when Redis lacks it. */
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
