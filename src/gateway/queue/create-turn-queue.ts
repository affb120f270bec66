import type { RedisOptions } from 'ioredis';
import { type BullmqTurnQueueOptions, createBullmqTurnQueue } from './bullmq-turn-queue.js';
import { createEmbeddedTurnQueue } from './embedded-turn-queue.js';
import type { TurnQueue, TurnQueueOptions } from './turn-queue.js';

export interface CreateTurnQueueOptions extends TurnQueueOptions {
  /** `REDIS_URL` (or ioredis options): BullMQ when set, the embedded queue otherwise. */
  readonly redis?: string | RedisOptions | undefined;
  /** BullMQ-only settings (prefix, queue name, lock and stalled-check timing, sweep interval). */
  readonly bullmq?: Omit<BullmqTurnQueueOptions, keyof TurnQueueOptions | 'connection'>;
}

/** Picks the queue for the deployment: Redis configured → BullMQ; nothing → in-process. */
export function createTurnQueue(options: CreateTurnQueueOptions): TurnQueue {
  const { redis, bullmq, ...common } = options;
  if (redis === undefined || redis === '') return createEmbeddedTurnQueue(common);
  return createBullmqTurnQueue({ ...common, ...bullmq, connection: redis });
}
