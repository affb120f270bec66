import { availableParallelism } from 'node:os';

/** Summary statistics of a sample, in the unit the samples were taken in. */
export interface Summary {
  readonly median: number;
  readonly p99: number;
  readonly min: number;
  readonly max: number;
  readonly samples: number;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    median: round(at(0.5)),
    p99: round(at(0.99)),
    min: round(sorted[0] ?? 0),
    max: round(sorted[sorted.length - 1] ?? 0),
    samples: sorted.length,
  };
}

/** Mean time per call in microseconds of `fn` over `iterations` calls (one sample). */
export function timePerCallUs(fn: () => void, iterations: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i += 1) fn();
  return Number(process.hrtime.bigint() - start) / 1000 / iterations;
}

export async function timePerCallUsAsync(fn: () => Promise<unknown>, iterations: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i += 1) await fn();
  return Number(process.hrtime.bigint() - start) / 1000 / iterations;
}

export function environment(): Record<string, unknown> {
  return {
    node: process.version,
    cores: availableParallelism(),
    platform: `${process.platform}-${process.arch}`,
  };
}

export function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
