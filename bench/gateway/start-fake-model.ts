import { resolve } from 'node:path';
import { forkBenchChild } from '../lib/fork-bench-child.js';

export interface FakeModel {
  /** OpenAI-style base URL, ending in `/v1`. */
  readonly baseURL: string;
  readonly pid: number | undefined;
  close(): Promise<void>;
}

/**
 * Starts `fake-model-server.ts` in a child process (answer streamed in `chunks` text deltas,
 * each answer held back `latencyMs`, default 0), so
 * the model's own work runs off the measured event loop, as a remote model's would, and waits for
 * its port.
 */
export async function startFakeModel(
  options: { readonly chunks?: number; readonly latencyMs?: number } = {},
): Promise<FakeModel> {
  const { child, ready, close } = await forkBenchChild(resolve(import.meta.dirname, 'fake-model-server.ts'), {
    env: {
      ...process.env,
      BENCH_FAKE_CHUNKS: String(options.chunks ?? 1),
      BENCH_FAKE_LATENCY_MS: String(options.latencyMs ?? 0),
    },
    what: 'the fake model',
  });
  const { port } = ready as { port: number };
  return { baseURL: `http://127.0.0.1:${port}/v1`, pid: child.pid, close };
}
