import { resolve } from 'node:path';
import { forkBenchChild } from '../lib/fork-bench-child.js';

export interface ToolModel {
  /** OpenAI-style base URL, ending in `/v1`. */
  readonly baseURL: string;
  close(): Promise<void>;
}

/** Starts `tool-model-server.ts` in a child process and waits for its port. */
export async function startToolModel(): Promise<ToolModel> {
  const { ready, close } = await forkBenchChild(resolve(import.meta.dirname, 'tool-model-server.ts'), {
    what: 'the fake tool model',
  });
  const { port } = ready as { port: number };
  return { baseURL: `http://127.0.0.1:${port}/v1`, close };
}
