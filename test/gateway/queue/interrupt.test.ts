import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import { createBullmqTurnQueue } from '../../../src/gateway/queue/bullmq-turn-queue.js';
import { createEmbeddedTurnQueue } from '../../../src/gateway/queue/embedded-turn-queue.js';
import type { BusyInputMode, TurnQueue } from '../../../src/gateway/queue/turn-queue.js';
import { aborted, deferred, failures, makeItem, recorder, waitFor } from './queue-test-kit.js';
import { deleteUnder, REDIS_URL, TEST_QUEUE_TIMING, uniquePrefix } from './redis-test-kit.js';

const logger = pino({ level: 'silent' });
const prefixes: string[] = [];
let redis: Redis;

beforeAll(() => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  for (const prefix of prefixes) await deleteUnder(redis, prefix);
  await redis.quit();
});

/** Builds queues of one kind; queues built by one factory share their backing store (Redis prefix). */
type Factory = () => (mode?: BusyInputMode) => TurnQueue;

const factories: Record<'embedded' | 'bullmq', Factory> = {
  embedded: () => (mode) =>
    createEmbeddedTurnQueue({ logger, backoffMs: 10, busyInputMode: mode ?? 'queue' }),
  bullmq: () => {
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    return (mode) =>
      createBullmqTurnQueue({
        logger,
        connection: REDIS_URL,
        prefix,
        backoffMs: 10,
        busyInputMode: mode ?? 'queue',
        ...TEST_QUEUE_TIMING,
      });
  },
};

for (const [name, factory] of Object.entries(factories)) {
  describe(`TurnQueue.interrupt: ${name}`, () => {
    const open: TurnQueue[] = [];
    const make = (build: ReturnType<Factory>, mode?: BusyInputMode) => {
      const queue = build(mode);
      open.push(queue);
      return queue;
    };
    const session = (label: string) => `agent:main:test:dm:${label}-${randomUUID().slice(0, 8)}`;

    afterEach(async () => {
      await Promise.all(open.splice(0).map((queue) => queue.close({ graceMs: 100 })));
    });

    it('answers false for a session with no turn in progress', async () => {
      const queue = make(factory());
      await queue.startWorkers(recorder().handler, { concurrency: 2, onFailed: failures().onFailed });
      expect(await queue.interrupt(session('idle'))).toBe(false);
    });

    it('aborts the running turn with reason interrupt, then runs the waiting items as usual', async () => {
      const queue = make(factory());
      const key = session('stop');
      const rec = recorder(async (turn) => {
        if (turn.items[0]?.eventId === 'long') await aborted(turn.signal);
      });
      const failed = failures();
      await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failed.onFailed });

      await queue.submit(makeItem(key, 'long'));
      await waitFor(() => rec.turns.length === 1, 'long turn running');
      expect(await queue.submit(makeItem(key, 'next-1'))).toEqual({ status: 'queued' });
      expect(await queue.submit(makeItem(key, 'next-2'))).toEqual({ status: 'queued' });

      expect(await queue.interrupt(key)).toBe(true);
      await waitFor(() => rec.handled(key).length === 3, 'the waiting items ran after the interrupt');
      expect(rec.turns.map((turn) => turn.eventIds)).toEqual([['long'], ['next-1', 'next-2']]);
      expect(rec.turns.map((turn) => turn.abortReason)).toEqual(['interrupt', undefined]);
      expect(failed.list).toEqual([]);
      expect(await queue.interrupt(key)).toBe(false);
    });

    it('touches only the named session', async () => {
      const queue = make(factory());
      const [a, b] = [session('a'), session('b')];
      const releaseB = deferred();
      const rec = recorder(async (turn) => {
        if (turn.sessionKey === a) await aborted(turn.signal);
        else await releaseB.promise;
      });
      await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failures().onFailed });
      await queue.submit(makeItem(a, 'a1'));
      await queue.submit(makeItem(b, 'b1'));
      await waitFor(() => rec.turns.length === 2, 'both turns running');

      expect(await queue.interrupt(a)).toBe(true);
      await waitFor(() => rec.handled(a).length === 1, 'turn of a ended');
      expect(rec.turns.find((turn) => turn.sessionKey === b)?.ended).toBe(false);
      releaseB.resolve();
      await waitFor(() => rec.handled(b).length === 1, 'turn of b ended');
      expect(rec.turns.map((turn) => [turn.sessionKey, turn.abortReason])).toEqual(
        expect.arrayContaining([
          [a, 'interrupt'],
          [b, undefined],
        ]),
      );
    });

    it('ends a turn quietly when its handler throws after the interrupt (no retry, no failure report)', async () => {
      const queue = make(factory(), 'steer');
      const key = session('throw');
      const rec = recorder(async (turn) => {
        await aborted(turn.signal);
        throw turn.signal.reason;
      });
      const failed = failures();
      await queue.startWorkers(rec.handler, { concurrency: 1, onFailed: failed.onFailed });
      await queue.submit(makeItem(key, 'only'));
      await waitFor(() => rec.turns.length === 1, 'turn running');
      expect(await queue.interrupt(key)).toBe(true);
      await waitFor(() => rec.handled(key).length === 1, 'turn ended');
      expect(rec.turns).toHaveLength(1);
      expect(rec.turns[0]?.attempt).toBe(1);
      expect(failed.list).toEqual([]);
    });

    it('refuses once the queue is closed', async () => {
      const queue = make(factory());
      await queue.close({ graceMs: 100 });
      const error = await queue.interrupt(session('closed')).catch((caught: unknown) => caught);
      expect(isHermesError(error, 'queue_closed')).toBe(true);
    });
  });
}

describe('TurnQueue.interrupt: bullmq across processes', () => {
  const open: TurnQueue[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((queue) => queue.close({ graceMs: 100 })));
  });

  it('a producer-only instance stops a turn running on a worker instance', async () => {
    const build = factories.bullmq();
    const worker = build();
    const producer = build();
    open.push(worker, producer);
    const key = `agent:main:test:dm:remote-${randomUUID().slice(0, 8)}`;
    const rec = recorder(async (turn) => {
      if (turn.items[0]?.eventId === 'long') await aborted(turn.signal);
    });
    await worker.startWorkers(rec.handler, { concurrency: 1, onFailed: failures().onFailed });

    await producer.submit(makeItem(key, 'long'));
    await waitFor(() => rec.turns.length === 1, 'turn running on the worker');
    await producer.submit(makeItem(key, 'after'));
    expect(await producer.interrupt(key)).toBe(true);
    await waitFor(() => rec.handled(key).length === 2, 'the waiting item ran after the interrupt');
    expect(rec.turns.map((turn) => [turn.eventIds, turn.abortReason])).toEqual([
      [['long'], 'interrupt'],
      [['after'], undefined],
    ]);
  });
});
