import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';

export interface BenchChild {
  readonly child: ChildProcess;
  /** The first IPC message the child sent (its "ready" report). */
  readonly ready: unknown;
  /** SIGTERM, then waits for the exit; a no-op once the child has exited. */
  close(): Promise<void>;
}

/** True when the benches run from the compiled build (dist/bench, what `npm run bench` runs). */
export const COMPILED = import.meta.url.endsWith('.js');

/** The Node flags a bench child needs: none when compiled, else the parent's tsx loader. */
export const BENCH_EXEC_ARGV: readonly string[] = COMPILED ? [] : ['--import', import.meta.resolve('tsx')];

/**
 * Forks a bench script (named by its `.ts` source) the way this process runs: its compiled `.js`
 * twin with plain Node under `npm run bench`, or the source with the parent's tsx loader (resolved
 * from here, so it works whatever the working directory) when a bench is run with
 * `node --import tsx`. stdout ignored, stderr inherited, an IPC channel; waits for the child's
 * first message and rejects if it exits before sending one.
 */
export async function forkBenchChild(
  script: string,
  options: { readonly args?: readonly string[]; readonly env?: NodeJS.ProcessEnv; readonly what: string },
): Promise<BenchChild> {
  const child = fork(COMPILED ? script.replace(/\.ts$/, '.js') : script, [...(options.args ?? [])], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: options.env ?? process.env,
    execArgv: [...BENCH_EXEC_ARGV],
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
