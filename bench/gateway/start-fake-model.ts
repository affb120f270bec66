import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';

export interface FakeModel {
  /** OpenAI-style base URL, ending in `/v1`. */
  readonly baseURL: string;
  readonly pid: number | undefined;
  close(): Promise<void>;
}

/**
 * Starts `fake-model-server.ts` in a child process (answer streamed in `chunks` text deltas) (so the model's own work runs off the measured
 * event loop, as a remote model's would), with the parent's `--import tsx`, and waits for its port.
 */
export async function startFakeModel(options: { readonly chunks?: number } = {}): Promise<FakeModel> {
  const child: ChildProcess = fork(resolve(import.meta.dirname, 'fake-model-server.ts'), [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, BENCH_FAKE_CHUNKS: String(options.chunks ?? 1) },
    // Resolved from here, so it works whatever the working directory.
    execArgv: ['--import', import.meta.resolve('tsx')],
  });
  const [message] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(() => {
      throw new Error('the fake model exited before listening');
    }),
  ])) as [{ port: number }];
  return {
    baseURL: `http://127.0.0.1:${message.port}/v1`,
    pid: child.pid,
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
