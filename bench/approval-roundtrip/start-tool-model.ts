import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';

export interface ToolModel {
  /** OpenAI-style base URL, ending in `/v1`. */
  readonly baseURL: string;
  close(): Promise<void>;
}

/** Starts `tool-model-server.ts` in a child process (with `--import tsx`) and waits for its port. */
export async function startToolModel(): Promise<ToolModel> {
  const child: ChildProcess = fork(resolve(import.meta.dirname, 'tool-model-server.ts'), [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: ['--import', import.meta.resolve('tsx')],
  });
  const [message] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(() => {
      throw new Error('the fake tool model exited before listening');
    }),
  ])) as [{ port: number }];
  return {
    baseURL: `http://127.0.0.1:${message.port}/v1`,
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
