import { Redis } from 'ioredis';
import { round } from '../lib/stats.js';
import { REDIS_URL } from './redis-keys.js';

export interface RedisRoundTripCost {
  /** CPU of this process per EVALSHA with `concurrency` calls always in flight (how bare BullMQ talks to Redis). */
  readonly back_to_back_cpu_us: number;
  /** CPU per EVALSHA sent alone, with other work in between (how a turn's SUBMIT_CLAIM and FINISH go). */
  readonly sparse_cpu_us: number;
  readonly ratio: number;
  readonly calls: number;
  readonly concurrency: number;
  readonly spin_between_us: number;
}

const SCRIPT = "redis.call('SET', KEYS[1], ARGV[1]); redis.call('DEL', KEYS[1]); return {'ok', ARGV[1]}";

function spin(us: number): void {
  const until = performance.now() + us / 1000;
  while (performance.now() < until) {
    // busy: stands for the rest of a turn's work while the reply travels
  }
}

function cpuUs(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/**
 * What one Redis round trip costs this process in CPU, the two ways it happens in the bench:
 * back to back (bare BullMQ keeps Redis and its socket busy) and sparse (a turn sends a script,
 * works, then sends another; Redis sleeps in between and every write must wake it). On a VM the
 * wake-up is the expensive part, which is why a turn's two round trips weigh more than a bare
 * job's several. Diagnostic only: it explains the ratio against bare BullMQ, it is no target.
 */
export async function measureRedisRoundTripCost(options: {
  calls?: number;
  concurrency?: number;
  spinUs?: number;
  prefix: string;
}): Promise<RedisRoundTripCost> {
  const calls = options.calls ?? 4_000;
  const concurrency = options.concurrency ?? 16;
  const spinUs = options.spinUs ?? 300;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  try {
    const sha = String(await redis.script('LOAD', SCRIPT));
    const arg = 'x'.repeat(400);
    const key = (i: number) => `${options.prefix}:rtt:${i}`;
    const backToBack = async () => {
      let next = 0;
      const before = cpuUs();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < calls) {
            next += 1;
            await redis.evalsha(sha, 1, key(next), arg);
          }
        }),
      );
      return (cpuUs() - before) / calls;
    };
    const sparse = async () => {
      const before = cpuUs();
      for (let i = 0; i < calls; i += 1) {
        const reply = redis.evalsha(sha, 1, key(i), arg);
        spin(spinUs);
        await reply;
      }
      return (cpuUs() - before) / calls - spinUs;
    };
    await backToBack();
    await sparse();
    const a = [await backToBack(), await backToBack()];
    const b = [await sparse(), await sparse()];
    const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
    const backToBackUs = mean(a);
    const sparseUs = mean(b);
    return {
      back_to_back_cpu_us: round(backToBackUs),
      sparse_cpu_us: round(sparseUs),
      ratio: round(sparseUs / backToBackUs),
      calls,
      concurrency,
      spin_between_us: spinUs,
    };
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}
