import { Queue, Worker } from 'bullmq';

const connection = { host: '127.0.0.1', port: 6379 };

export interface BareBullmq {
  /** Adds one no-op job and resolves when this process' worker has completed it. */
  runJob(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Bare BullMQ: `Queue.add` + a `Worker` whose processor does nothing, `removeOnComplete`.
 * Completion is seen through the worker's in-process `completed` event (no extra Redis traffic).
 */
export async function startBareBullmq(options: {
  readonly prefix: string;
  readonly concurrency: number;
}): Promise<BareBullmq> {
  const name = 'bare';
  const queue = new Queue(name, { connection, prefix: options.prefix });
  const worker = new Worker(name, async () => undefined, {
    connection,
    prefix: options.prefix,
    concurrency: options.concurrency,
  });
  const waiting = new Map<string, () => void>();
  const early = new Set<string>();
  worker.on('completed', (job) => {
    const id = job.id ?? '';
    const resolve = waiting.get(id);
    if (resolve === undefined) early.add(id);
    else {
      waiting.delete(id);
      resolve();
    }
  });
  await Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]);
  return {
    async runJob() {
      const job = await queue.add('noop', {}, { removeOnComplete: true, removeOnFail: true });
      const id = job.id ?? '';
      if (early.delete(id)) return;
      await new Promise<void>((resolve) => waiting.set(id, resolve));
    },
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
