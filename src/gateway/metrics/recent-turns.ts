/** The windows `/metrics` and the dashboard report recent turns over. */
export const RECENT_WINDOWS = { '1m': 60_000, '5m': 300_000 } as const;
export type RecentWindow = keyof typeof RECENT_WINDOWS;

/** The latency quantiles reported for each window. */
export const RECENT_QUANTILES = [0.5, 0.95, 0.99] as const;

export interface RecentTurnFigures {
  readonly window: RecentWindow;
  /** Turns that ended in the window (any outcome). */
  readonly turns: number;
  /** `turns` per minute of the window. */
  readonly perMinute: number;
  /** Turn latency quantiles in seconds (p50, p95, p99), null without turns in the window. */
  readonly p50: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
}

/**
 * A quantile from histogram bucket counts, the way Prometheus' `histogram_quantile` computes it:
 * find the bucket holding the rank, interpolate linearly inside it (the first bucket starts at 0);
 * a rank in the +Inf bucket answers the highest finite bound. `counts` are per bucket (not
 * cumulative), one more than `bounds` (the last is +Inf). Null without observations.
 */
export function bucketQuantile(
  q: number,
  bounds: readonly number[],
  counts: readonly number[],
): number | null {
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let index = 0; index < counts.length; index += 1) {
    const count = counts[index] ?? 0;
    if (count > 0 && below + count >= rank) {
      const upper = bounds[index];
      if (upper === undefined) return bounds[bounds.length - 1] ?? null;
      const lower = index === 0 ? 0 : (bounds[index - 1] ?? 0);
      return lower + (upper - lower) * ((rank - below) / count);
    }
    below += count;
  }
  return bounds[bounds.length - 1] ?? null;
}

/**
 * Turn ends of the last five minutes, in 5-second slots of bucket counts with the same bounds as
 * the `hermes_turn_duration_seconds` histogram: fed by the same observation, so the dashboard's
 * rates and percentiles are the ones `/metrics` reports. Memory is fixed (60 slots).
 */
export class RecentTurns {
  readonly #bounds: readonly number[];
  readonly #now: () => number;
  readonly #slotMs: number;
  readonly #slots: { start: number; counts: number[] }[];

  constructor(bounds: readonly number[], now: () => number = Date.now, slotMs = 5_000) {
    this.#bounds = [...bounds].sort((a, b) => a - b);
    this.#now = now;
    this.#slotMs = slotMs;
    const slotCount = Math.ceil(RECENT_WINDOWS['5m'] / slotMs);
    this.#slots = Array.from({ length: slotCount }, () => ({ start: -1, counts: [] }));
  }

  /** Records one turn that ended now, lasting `seconds`. */
  observe(seconds: number): void {
    const start = Math.floor(this.#now() / this.#slotMs) * this.#slotMs;
    const slot = this.#slots[(start / this.#slotMs) % this.#slots.length];
    if (slot === undefined) return;
    if (slot.start !== start) {
      slot.start = start;
      slot.counts = new Array<number>(this.#bounds.length + 1).fill(0);
    }
    let index = this.#bounds.findIndex((bound) => seconds <= bound);
    if (index === -1) index = this.#bounds.length;
    slot.counts[index] = (slot.counts[index] ?? 0) + 1;
  }

  /** Turns, turns per minute and latency quantiles of the last minute and of the last five. */
  figures(): RecentTurnFigures[] {
    const now = this.#now();
    return (Object.keys(RECENT_WINDOWS) as RecentWindow[]).map((window) => {
      const spanMs = RECENT_WINDOWS[window];
      const counts = new Array<number>(this.#bounds.length + 1).fill(0);
      for (const slot of this.#slots) {
        // A slot counts while any of it lies inside the window: up to one slot more than the span.
        if (slot.start < 0 || slot.start + this.#slotMs <= now - spanMs) continue;
        slot.counts.forEach((count, index) => {
          counts[index] = (counts[index] ?? 0) + count;
        });
      }
      const turns = counts.reduce((sum, count) => sum + count, 0);
      const [p50, p95, p99] = RECENT_QUANTILES.map((q) => bucketQuantile(q, this.#bounds, counts));
      return {
        window,
        turns,
        perMinute: turns / (spanMs / 60_000),
        p50: p50 ?? null,
        p95: p95 ?? null,
        p99: p99 ?? null,
      };
    });
  }
}
