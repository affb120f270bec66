import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type BullmqTurnQueue, createBullmqTurnQueue } from '../../../src/gateway/queue/bullmq-turn-queue.js';
import { type OwnRedis, startOwnRedis } from '../../chaos/chaos-kit.js';
import { failures, makeItem, recorder, sleep, waitFor } from './queue-test-kit.js';
import { TEST_QUEUE_TIMING, uniquePrefix } from './redis-test-kit.js';

const logger = pino({ level: process.env['QUEUE_TEST_LOG'] ?? 'silent' });

/**
 * Redis killed (SIGKILL, append-only file on) and started again, with turns idle or in flight,
 * run locally first or through BullMQ jobs only: the queue reconnects, every item is handled
 * once and in order, nothing is reported failed. (The process chaos run does the same with
 * separate processes; this is the quick check near the code.)
 */
describe('BullMQ turn queue across a Redis restart', () => {
  let redis: OwnRedis | undefined;
  const queues: BullmqTurnQueue[] = [];
  const dirs: string[] = [];

  afterEach(async () => {
    await Promise.all(queues.splice(0).map((queue) => queue.close({ graceMs: 100 })));
    await redis?.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    { localFirst: true, inFlight: false },
    { localFirst: false, inFlight: false },
    { localFirst: true, inFlight: true },
    { localFirst: false, inFlight: true },
  ])(
    'keeps running turns, in order, after Redis was killed and started again (%o)',
    async ({ localFirst, inFlight }) => {
      const dir = mkdtempSync(join(tmpdir(), 'hermes-queue-redis-'));
      dirs.push(dir);
      redis = await startOwnRedis(dir);
      let slow = false;
      const { handler, handled } = recorder(() => sleep(slow ? 1_500 : 20));
      const failed = failures();
      const queue = createBullmqTurnQueue({
        logger,
        connection: redis.url,
        prefix: uniquePrefix(),
        backoffMs: 10,
        localFirst,
        ...TEST_QUEUE_TIMING,
      });
      queues.push(queue);
      await queue.startWorkers(handler, { concurrency: 4, onFailed: failed.onFailed });
      const sessions = ['s1', 's2', 's3', 's4', 's5', 's6'];
      for (const session of sessions) await queue.submit(makeItem(session, `${session}-a`));
      await waitFor(() => handled().length === sessions.length, 'the turns before the restart');

      if (inFlight) {
        slow = true;
        for (const session of sessions) await queue.submit(makeItem(session, `${session}-m`));
        await sleep(300);
      }
      await redis.restart();
      slow = false;
      for (const session of sessions) await queue.submit(makeItem(session, `${session}-b`));
      const expected = (session: string) => [
        `${session}-a`,
        ...(inFlight ? [`${session}-m`] : []),
        `${session}-b`,
      ];
      await waitFor(
        () => sessions.every((session) => handled(session).length >= expected(session).length),
        'the turns after the restart',
        20_000,
      );
      for (const session of sessions) expect(handled(session)).toEqual(expected(session));
      expect(failed.list).toEqual([]);
    },
    40_000,
  );
});
