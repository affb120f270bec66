/** What one closed-loop run measured: wall time, per-call latencies (ms) and failures. */
export interface LoadResult {
  readonly total: number;
  readonly concurrency: number;
  readonly durationMs: number;
  readonly latenciesMs: readonly number[];
  readonly errors: number;
  readonly firstError: string | undefined;
}

/**
 * Runs `total` calls with at most `concurrency` in flight: each lane starts its next call as soon
 * as its previous one settles (a closed loop, like N clients each waiting for its answer).
 * Failed calls are counted, not thrown, and their latency is left out.
 */
export async function closedLoop(options: {
  readonly total: number;
  readonly concurrency: number;
  readonly call: (index: number) => Promise<void>;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  let firstError: string | undefined;
  const lane = async () => {
    while (next < options.total) {
      const index = next;
      next += 1;
      const start = process.hrtime.bigint();
      try {
        await options.call(index);
        latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
      } catch (error) {
        errors += 1;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.total) }, lane));
  return {
    total: options.total,
    concurrency: options.concurrency,
    durationMs: Number(process.hrtime.bigint() - start) / 1e6,
    latenciesMs: latencies,
    errors,
    firstError,
  };
}

/** Completed calls per second of a run. */
export function perSecond(result: LoadResult): number {
  return ((result.total - result.errors) * 1000) / result.durationMs;
}
