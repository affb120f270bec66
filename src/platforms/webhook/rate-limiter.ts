/**
 * A token bucket per key (one per webhook route): `perMinute` tokens refill evenly over a
 * minute and at most `perMinute` are saved up, so a sender may burst up to its limit and then
 * continues at the steady rate.
 */
export interface RateLimiter {
  /** Takes a token: `{ ok: true }`, or how long until one is available. */
  take(
    key: string,
    perMinute: number,
  ): { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number };
}

export function createRateLimiter(now: () => number): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key, perMinute) {
      const at = now();
      const perMs = perMinute / 60_000;
      const bucket = buckets.get(key) ?? { tokens: perMinute, at };
      bucket.tokens = Math.min(perMinute, bucket.tokens + (at - bucket.at) * perMs);
      bucket.at = at;
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { ok: true };
      }
      return { ok: false, retryAfterMs: Math.ceil((1 - bucket.tokens) / perMs) };
    },
  };
}
