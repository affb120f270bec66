import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';

export interface TsChild {
  readonly child: ChildProcess;
  /** The first IPC message the child sent (its "ready" report). */
  readonly ready: unknown;
  /** SIGTERM, then waits for the exit; a no-op once the child has exited. */
  close(): Promise<void>;
}

/**
 * Forks a TypeScript bench script with the parent's tsx loader (resolved from here, so it works
 * whatever the working directory), stdout ignored, stderr inherited, an IPC channel, and waits for
 * its first message. Rejects if the child exits before sending one.
 */
export async function forkTsChild(
  script: string,
  options: { readonly args?: readonly string[]; readonly env?: NodeJS.ProcessEnv; readonly what: string },
): Promise<TsChild> {
  const child = fork(script, [...(options.args ?? [])], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: options.env ?? process.env,
    execArgv: ['--import', import.meta.resolve('tsx')],
  });
  const [ready] = await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(() => {
      throw new Error(`${options.what} exited before it was ready`);
    }),
  ]);
  return {
    child,
    ready,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
