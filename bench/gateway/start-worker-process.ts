import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { forkBenchChild } from '../lib/fork-bench-child.js';

export interface WorkerProcess {
  readonly pid: number | undefined;
  /** CPU time (user + system, seconds) the process has used so far, read from /proc; undefined elsewhere. */
  cpuSeconds(): Promise<number | undefined>;
  close(): Promise<void>;
}

/** Starts `bench-worker-process.ts` (a `worker`-role gateway on `home`) and waits until its workers run. */
export async function startWorkerProcess(options: {
  readonly home: string;
  readonly workdir: string;
  readonly modelBaseURL: string;
}): Promise<WorkerProcess> {
  const { child, close } = await forkBenchChild(resolve(import.meta.dirname, 'bench-worker-process.ts'), {
    args: [options.home, options.workdir, options.modelBaseURL],
    what: 'the bench worker process',
  });
  return {
    pid: child.pid,
    async cpuSeconds() {
      try {
        // Fields 14 and 15 of /proc/<pid>/stat: utime and stime in clock ticks (100 per second on Linux).
        const fields = (await readFile(`/proc/${child.pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
        return (Number(fields[11]) + Number(fields[12])) / 100;
      } catch {
        return undefined;
      }
    },
    close,
  };
}
