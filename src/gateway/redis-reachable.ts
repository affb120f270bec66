import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { HermesError } from '../errors/hermes-error.js';

/** `redis://user:password@host:6379/0` → `redis://host:6379/0`: safe to print. */
export function redisUrlForDisplay(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return 'REDIS_URL (not a valid URL)';
  }
}

/** What a Redis connection failure means, in words a user can act on. */
export function explainRedisError(url: string, message: string): string {
  const where = redisUrlForDisplay(url);
  if (/ECONNREFUSED/.test(message)) {
    return `nothing accepts connections at ${where}: start Redis there (redis-server), or fix REDIS_URL`;
  }
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) {
    return `the host of ${where} does not resolve: check the host name in REDIS_URL`;
  }
  if (/ETIMEDOUT|timed out|timeout/i.test(message)) {
    return `${where} did not answer in time: check that the host is reachable and no firewall drops the port`;
  }
  if (/NOAUTH|WRONGPASS|invalid password|invalid username/i.test(message)) {
    return `${where} refused the credentials: put the right password in REDIS_URL (redis://:password@host:port)`;
  }
  if (/Connection is closed|ECONNRESET|EPIPE/i.test(message)) {
    return (
      `${where} accepted the connection but closed it before answering: ` +
      'is it really Redis on that port, does it need TLS (use rediss://), or is it refusing clients (maxclients, protected-mode)?'
    );
  }
  return `${where}: ${message}`;
}

export interface WaitForRedisOptions {
  /** Gives up after this long, ms. */
  readonly timeoutMs: number;
  /** Pause between attempts, ms. */
  readonly retryMs?: number;
}

/**
 * Resolves once Redis at `url` answers PING; throws `redis_unreachable` with an explanation when
 * it has not within `timeoutMs`. Start-up calls it before anything waits on Redis, so a wrong or
 * dead REDIS_URL ends start-up with a clear error instead of hanging on endless reconnects.
 */
export async function waitForRedis(url: string, options: WaitForRedisOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError = 'no answer';
  for (;;) {
    const left = deadline - Date.now();
    const answer = await pingOnce(url, Math.max(200, Math.min(left, 2_000)));
    if (answer === undefined) return;
    lastError = answer;
    if (Date.now() + (options.retryMs ?? 500) >= deadline) break;
    await sleep(options.retryMs ?? 500);
  }
  throw new HermesError(
    'redis_unreachable',
    `Redis is not reachable after ${Math.round(options.timeoutMs / 1000)} s — ${explainRedisError(url, lastError)}\n` +
      'Without REDIS_URL the gateway runs on its embedded queue (one process); redis.connect_timeout_ms sets how long start-up waits.',
  );
}

/** One PING with a short timeout; resolves to an error text, or undefined when Redis answered. */
export async function pingOnce(url: string, timeoutMs = 2_000): Promise<string | undefined> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // The socket's own error (ECONNREFUSED…) says more than the "Connection is closed" that follows.
  let socketError: string | undefined;
  redis.on('error', (error: Error) => {
    socketError ??= error.message;
  });
  try {
    await redis.connect();
    const answer = await redis.ping();
    return answer === 'PONG' ? undefined : `unexpected answer ${answer}`;
  } catch (error) {
    return socketError ?? (error instanceof Error ? error.message : String(error));
  } finally {
    redis.disconnect();
  }
}
