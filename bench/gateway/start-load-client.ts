import { resolve } from 'node:path';
import type { LoadResult } from '../lib/closed-loop.js';
import { forkBenchChild } from '../lib/fork-bench-child.js';
import type { LoadJob, LoadReply, LoadRequest } from './load-job.js';

export interface LoadClient {
  readonly pid: number | undefined;
  /** Runs one closed loop in the client process and resolves with what it measured. */
  run(job: LoadJob): Promise<LoadResult>;
  close(): Promise<void>;
}

/** Starts `load-client-process.ts` and waits until it is ready. */
export async function startLoadClient(): Promise<LoadClient> {
  const { child, close } = await forkBenchChild(resolve(import.meta.dirname, 'load-client-process.ts'), {
    what: 'the load client',
  });
  let nextId = 0;
  const pending = new Map<
    number,
    { resolve: (result: LoadResult) => void; reject: (error: Error) => void }
  >();
  child.on('message', (message: LoadReply) => {
    const waiter = pending.get(message.id);
    if (waiter === undefined) return;
    pending.delete(message.id);
    if ('result' in message) waiter.resolve(message.result);
    else waiter.reject(new Error(`load client: ${message.error}`));
  });
  child.on('exit', (code, signal) => {
    for (const waiter of pending.values())
      waiter.reject(new Error(`the load client exited (${code ?? signal})`));
    pending.clear();
  });
  return {
    pid: child.pid,
    run(job) {
      const id = nextId;
      nextId += 1;
      return new Promise<LoadResult>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, job } satisfies LoadRequest);
      });
    },
    close,
  };
}
