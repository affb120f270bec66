import { describe, expect, it } from 'vitest';
import { GatewayMetrics, TURN_SECONDS_BUCKETS } from '../../../src/gateway/metrics/gateway-metrics.js';
import { bucketQuantile, RecentTurns } from '../../../src/gateway/metrics/recent-turns.js';

describe('bucketQuantile (histogram_quantile over bucket counts)', () => {
  it('interpolates inside the bucket holding the rank, from 0 for the first bucket', () => {
    // 10 observations in (0, 1], 10 in (1, 2]: the median is the top of the first bucket.
    expect(bucketQuantile(0.5, [1, 2], [10, 10, 0])).toBe(1);
    expect(bucketQuantile(0.25, [1, 2], [10, 10, 0])).toBe(0.5);
    expect(bucketQuantile(0.75, [1, 2], [10, 10, 0])).toBe(1.5);
    expect(bucketQuantile(0.99, [1, 2], [0, 4, 0])).toBeCloseTo(1.99);
  });

  it('answers the highest finite bound for a rank in +Inf, and null without observations', () => {
    expect(bucketQuantile(0.99, [1, 2], [1, 0, 9])).toBe(2);
    expect(bucketQuantile(0.5, [1, 2], [0, 0, 0])).toBeNull();
  });
});

describe('RecentTurns', () => {
  it('reports turns per minute and quantiles over the last 1 and 5 minutes, forgetting older turns', () => {
    let now = 1_000_000_000;
    const recent = new RecentTurns([1, 2, 5], () => now);
    for (let i = 0; i < 10; i += 1) recent.observe(0.5);
    now += 2 * 60_000;
    for (let i = 0; i < 6; i += 1) recent.observe(4);
    const [oneMinute, fiveMinutes] = recent.figures();
    expect(oneMinute).toMatchObject({ window: '1m', turns: 6, perMinute: 6 });
    expect(oneMinute?.p50).toBeCloseTo(3.5);
    expect(fiveMinutes).toMatchObject({ window: '5m', turns: 16, perMinute: 16 / 5 });
    expect(fiveMinutes?.p50).toBeCloseTo(0.8);
    expect(fiveMinutes?.p99).toBeCloseTo(4.92);
    // Four minutes on: the first ten are older than five minutes, the last six older than one.
    now += 4 * 60_000;
    expect(recent.figures().map((f) => f.turns)).toEqual([0, 6]);
    now += 60_000 + 5_000;
    expect(recent.figures().map((f) => f.turns)).toEqual([0, 0]);
    expect(recent.figures()[1]).toMatchObject({ perMinute: 0, p50: null, p95: null, p99: null });
  });
});

describe('GatewayMetrics on /metrics', () => {
  it('renders the turn histogram and the recent figures the dashboard reads, from one observation', async () => {
    let now = 1_000_000_000;
    const metrics = new GatewayMetrics(
      { queueDepth: async () => 0, pendingApprovals: async () => 0 },
      () => now,
    );
    const before = (await metrics.render()).body;
    expect(before).toContain('hermes_turns_per_minute{window="1m"} 0');
    expect(before).not.toContain('hermes_turn_duration_recent_seconds{');
    metrics.observeTurn(0.3);
    metrics.observeTurn(0.4);
    now += 1000;
    metrics.observeTurn(7);
    const text = (await metrics.render()).body;
    for (const bound of TURN_SECONDS_BUCKETS) {
      expect(text).toContain(`hermes_turn_duration_seconds_bucket{le="${bound}"}`);
    }
    expect(text).toContain('hermes_turn_duration_seconds_count 3');
    expect(text).toContain('hermes_turns_per_minute{window="1m"} 3');
    expect(text).toContain('hermes_turns_per_minute{window="5m"} 0.6');
    const [oneMinute] = metrics.recentTurns.figures();
    expect(oneMinute?.p50).toBeCloseTo(0.4375);
    expect(text).toContain(
      `hermes_turn_duration_recent_seconds{window="1m",quantile="0.5"} ${oneMinute?.p50}`,
    );
    expect(text).toContain(
      `hermes_turn_duration_recent_seconds{window="1m",quantile="0.95"} ${oneMinute?.p95}`,
    );
  });
});
