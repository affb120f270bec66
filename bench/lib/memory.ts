import { setTimeout as sleep } from 'node:timers/promises';

export interface MemorySnapshot {
  readonly rss_mb: number;
  readonly heap_used_mb: number;
  readonly heap_total_mb: number;
  readonly external_mb: number;
  readonly array_buffers_mb: number;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/**
 * Process memory after forced garbage collection (needs `node --expose-gc`; without it the
 * figures are taken as they are). Collects twice with a pause between, so finalisers and
 * freed native buffers are accounted for.
 */
export async function memoryAfterGc(): Promise<MemorySnapshot> {
  for (let i = 0; i < 3; i += 1) {
    globalThis.gc?.();
    await sleep(50);
  }
  const usage = process.memoryUsage();
  return {
    rss_mb: mb(usage.rss),
    heap_used_mb: mb(usage.heapUsed),
    heap_total_mb: mb(usage.heapTotal),
    external_mb: mb(usage.external),
    array_buffers_mb: mb(usage.arrayBuffers),
  };
}
