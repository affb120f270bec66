import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type BullmqTurnQueue,
  type BullmqTurnQueueOptions,
  createBullmqTurnQueue,
} from '../../../src/gateway/queue/bullmq-turn-queue.js';
import { queueKeys } from '../../../src/gateway/queue/session-keys.js';
import { CLAIM, FINISH, SUBMIT, SUBMIT_CLAIM } from '../../../src/gateway/queue/session-scripts.js';
import type { TurnContext } from '../../../src/gateway/queue/turn-queue.js';
import { startHoldingRedisProxy } from './holding-redis-proxy.js';
import { aborted, deferred, failures, makeItem, recorder, sleep, waitFor } from './queue-test-kit.js';
import { startRawMonitor } from './raw-monitor.js';
import { deleteUnder, keysUnder, REDIS_URL, TEST_QUEUE_TIMING, uniquePrefix } from './redis-test-kit.js';
import { describeTurnQueueConformance } from './turn-queue-conformance.js';

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

function freshPrefix(): string {
  const prefix = uniquePrefix();
  prefixes.push(prefix);
  return prefix;
}

function makeQueue(prefix: string, options: Partial<BullmqTurnQueueOptions> = {}): BullmqTurnQueue {
  return createBullmqTurnQueue({
    logger,
    connection: REDIS_URL,
    prefix,
    backoffMs: 10,
    ...TEST_QUEUE_TIMING,
    ...options,
  });
}

describeTurnQueueConformance('bullmq', async (options) => makeQueue(freshPrefix(), options));

describe('bullmq turn queue across instances', () => {
  const open: BullmqTurnQueue[] = [];
  const track = (queue: BullmqTurnQueue) => {
    open.push(queue);
    return queue;
  };

  afterEach(async () => {
    await Promise.all(open.splice(0).map((queue) => queue.close({ graceMs: 100 })));
  });

  it('two worker instances never run one session twice at once and keep its order', async () => {
    const prefix = freshPrefix();
    const a = track(makeQueue(prefix));
    const b = track(makeQueue(prefix));
    const active = new Map<string, number>();
    let maxPerSession = 0;
    const rec = recorder(async (turn) => {
      const now = (active.get(turn.sessionKey) ?? 0) + 1;
      active.set(turn.sessionKey, now);
      maxPerSession = Math.max(maxPerSession, now);
      await sleep(3);
      active.set(turn.sessionKey, now - 1);
    });
    await a.startWorkers(rec.handler, { concurrency: 2, onFailed: failures().onFailed });
    await b.startWorkers(rec.handler, { concurrency: 2, onFailed: failures().onFailed });
    const sessions = ['s1', 's2', 's3'];
    const sent = new Map<string, string[]>(sessions.map((key) => [key, []]));
    for (let index = 0; index < 36; index += 1) {
      const key = sessions[index % 3]!;
      sent.get(key)!.push(`e${index}`);
      await (index % 2 === 0 ? a : b).submit(makeItem(key, `e${index}`));
      if (index % 5 === 0) await sleep(4);
    }
    await waitFor(() => rec.handled().length === 36, 'all 36 handled');
    expect(maxPerSession).toBe(1);
    for (const key of sessions) expect(rec.handled(key)).toEqual(sent.get(key));
    await waitFor(async () => (await a.depth()) === 0, 'depth back to zero');
  });

  it('an interrupt sent by a producer-only instance reaches the worker instance', async () => {
    const prefix = freshPrefix();
    const producer = track(makeQueue(prefix, { busyInputMode: 'interrupt' }));
    const worker = track(makeQueue(prefix, { busyInputMode: 'interrupt' }));
    const rec = recorder(async (turn) => {
      if (turn.items[0]?.eventId === 'm1') await aborted(turn.signal);
    });
    await worker.startWorkers(rec.handler, { concurrency: 1, onFailed: failures().onFailed });
    expect((await producer.submit(makeItem('s', 'm1'))).status).toBe('started');
    await waitFor(() => rec.turns.length === 1, 'turn running on the worker instance');
    expect((await producer.submit(makeItem('s', 'm2'))).status).toBe('interrupting');
    await waitFor(() => rec.handled('s').length === 2, 'both turns ended');
    expect(rec.turns.map((turn) => [turn.eventIds, turn.abortReason])).toEqual([
      [['m1'], 'interrupt'],
      [['m2'], undefined],
    ]);
  });

  it('sees an interrupt through the lock renewal when the pub/sub message is missed', async () => {
    const prefix = freshPrefix();
    const worker = track(makeQueue(prefix, { busyInputMode: 'interrupt' }));
    const rec = recorder(async (turn) => {
      await aborted(turn.signal);
    });
    await worker.startWorkers(rec.handler, { concurrency: 1, onFailed: failures().onFailed });
    await worker.submit(makeItem('s', 'm1'));
    await waitFor(() => rec.turns.length === 1, 'turn running');
    // What SUBMIT does in interrupt mode, minus the publish.
    const keys = queueKeys(`${prefix}:gw:turns`).session('s');
    await redis.set(keys.interrupt, rec.turns[0]!.turnId, 'PX', 60_000);
    await waitFor(() => rec.turns[0]!.ended, 'turn aborted');
    expect(rec.turns[0]!.abortReason).toBe('interrupt');
  });

  it('hands a turn cut off by shutdown to another instance: same turn, same items, next attempt', async () => {
    const prefix = freshPrefix();
    const first = track(makeQueue(prefix));
    const firstRec = recorder(async (turn) => {
      await aborted(turn.signal);
      throw turn.signal.reason;
    });
    const failed = failures();
    await first.startWorkers(firstRec.handler, { concurrency: 1, onFailed: failed.onFailed });
    await first.submit(makeItem('s', 'm1'));
    await waitFor(() => firstRec.turns.length === 1, 'turn running on the first instance');
    await first.submit(makeItem('s', 'm2'));
    await first.close({ graceMs: 30 });
    expect(firstRec.turns[0]!.abortReason).toBe('shutdown');

    const second = track(makeQueue(prefix));
    const secondRec = recorder();
    await second.startWorkers(secondRec.handler, { concurrency: 1, onFailed: failed.onFailed });
    await waitFor(() => secondRec.handled('s').length === 2, 'turns finished on the second instance');
    expect(secondRec.turns.map((turn) => [turn.turnId, turn.eventIds, turn.attempt])).toEqual([
      [firstRec.turns[0]!.turnId, ['m1'], 2],
      [expect.any(String), ['m2'], 1],
    ]);
    expect(failed.list).toEqual([]);
  });

  it('a turn a submit claimed while the queue closed is handed back unrun: the next instance runs attempt 1', async () => {
    const prefix = freshPrefix();
    const first = track(makeQueue(prefix));
    const firstRec = recorder();
    const failed = failures();
    await first.startWorkers(firstRec.handler, { concurrency: 2, onFailed: failed.onFailed });
    // The submit reserves a local slot and claims the session; the close lands before its reply.
    const submitted = first.submit(makeItem('s', 'm1'));
    const closed = first.close({ graceMs: 100 });
    expect((await submitted).status).toBe('started');
    await closed;
    expect(firstRec.turns).toEqual([]);

    const second = track(makeQueue(prefix));
    const secondRec = recorder();
    await second.startWorkers(secondRec.handler, { concurrency: 2, onFailed: failed.onFailed });
    await waitFor(() => secondRec.handled('s').length === 1, 'the turn finished on the second instance');
    expect(secondRec.turns.map((turn) => [turn.eventIds, turn.attempt])).toEqual([[['m1'], 1]]);
    expect(failed.list).toEqual([]);
  });

  it('local-first: a process with a free slot runs the turn itself, without a BullMQ job', async () => {
    const prefix = freshPrefix();
    const queue = track(makeQueue(prefix));
    const rec = recorder();
    await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failures().onFailed });
    await queue.submit(makeItem('s', 'm1'));
    await waitFor(() => rec.handled('s').length === 1, 'handled');
    // BullMQ numbers its jobs with this counter: never touched means no job was added.
    expect(await redis.get(`${prefix}:turns:id`)).toBeNull();
  });

  it('local-first: the submit claims the idle session in the same script (no CLAIM round trip)', async () => {
    const prefix = freshPrefix();
    const queue = track(makeQueue(prefix));
    const monitor = await startRawMonitor();
    const scripts: string[] = [];
    const names = new Map([CLAIM, SUBMIT, SUBMIT_CLAIM, FINISH].map((script) => [script.sha, script.name]));
    monitor.onCommand((args) => {
      if (args[0]?.toLowerCase() === 'evalsha' && args.some((arg) => arg.startsWith(prefix))) {
        scripts.push(names.get(args[1] ?? '') ?? 'other');
      }
    });
    try {
      const rec = recorder();
      await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failures().onFailed });
      await queue.submit(makeItem('s', 'm1'));
      await waitFor(() => rec.handled('s').length === 1, 'handled');
      await waitFor(() => scripts.includes('finish'), 'finish seen');
      expect(scripts.filter((name) => name !== 'other')).toEqual(['submitClaim', 'finish']);
    } finally {
      monitor.close();
    }
  });

  it('a submit that claimed while the queue began closing hands its turn to another instance', async () => {
    const prefix = freshPrefix();
    const first = track(makeQueue(prefix));
    const firstRec = recorder();
    await first.startWorkers(firstRec.handler, { concurrency: 2, onFailed: failures().onFailed });
    const submitted = first.submit(makeItem('s', 'm1'));
    const closed = first.close({ graceMs: 2_000 });
    expect((await submitted).status).toBe('started');
    await closed;
    expect(firstRec.turns).toEqual([]);
    const second = track(makeQueue(prefix));
    const secondRec = recorder();
    await second.startWorkers(secondRec.handler, { concurrency: 2, onFailed: failures().onFailed });
    await waitFor(() => secondRec.handled('s').length === 1, 'handled on the second instance');
    expect(secondRec.handled('s')).toEqual(['m1']);
  });

  it('with localFirst off, or with one slot, every turn goes through a BullMQ job', async () => {
    for (const [options, concurrency] of [
      [{ localFirst: false }, 2],
      [{}, 1],
    ] as const) {
      const prefix = freshPrefix();
      const queue = track(makeQueue(prefix, options));
      const rec = recorder();
      await queue.startWorkers(rec.handler, { concurrency, onFailed: failures().onFailed });
      await queue.submit(makeItem('s', 'm1'));
      await queue.submit(makeItem('t', 'm1'));
      await waitFor(() => rec.handled().length === 2, 'handled');
      expect(Number(await redis.get(`${prefix}:turns:id`))).toBe(2);
    }
  });

  it('local and job turns together never exceed the concurrency of the process', async () => {
    const prefix = freshPrefix();
    const queue = track(makeQueue(prefix));
    const gate = deferred();
    let running = 0;
    let most = 0;
    const rec = recorder(async () => {
      running += 1;
      most = Math.max(most, running);
      await gate.promise;
      running -= 1;
    });
    await queue.startWorkers(rec.handler, { concurrency: 3, onFailed: failures().onFailed });
    for (let index = 0; index < 7; index += 1) await queue.submit(makeItem(`s${index}`, 'm1'));
    await waitFor(() => running === 3, 'three turns running');
    await sleep(300);
    expect(running).toBe(3);
    gate.resolve();
    await waitFor(() => rec.handled().length === 7, 'all handled');
    expect(most).toBe(3);
    // Two ran locally (one slot always stays with the BullMQ worker), the rest through jobs.
    expect(Number(await redis.get(`${prefix}:turns:id`))).toBe(5);
  });

  it('local-first: a run gives its slot up while its FINISH is in flight, so the next submit runs here too', async () => {
    const prefix = freshPrefix();
    const proxy = await startHoldingRedisProxy();
    let releaseFinish = () => {};
    try {
      // One slot for local work (the BullMQ worker keeps the other).
      const queue = track(makeQueue(prefix, { connection: proxy.url }));
      const rec = recorder(async (turn) => {
        // The first turn ends with the worker connection (where FINISH goes) held in the proxy.
        if (turn.sessionKey === 's1') releaseFinish = proxy.hold('hermes-worker');
      });
      await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failures().onFailed });
      await queue.submit(makeItem('s1', 'm1'));
      await waitFor(() => proxy.heldChunks('hermes-worker') > 0, 'the FINISH of s1 held');
      expect((await queue.submit(makeItem('s2', 'm1'))).status).toBe('started');
      await waitFor(() => rec.handled('s2').length === 1, 's2 handled while the FINISH of s1 waits');
      releaseFinish();
      // BullMQ numbers its jobs with this counter: never touched means no job was added.
      expect(await redis.get(`${prefix}:turns:id`)).toBeNull();
    } finally {
      releaseFinish();
      await Promise.all(open.splice(0).map((queue) => queue.close({ graceMs: 100 })));
      await proxy.close();
    }
  });

  it('local-first: a next turn that finds every slot taken after FINISH goes to a job, within the concurrency', async () => {
    const prefix = freshPrefix();
    const proxy = await startHoldingRedisProxy();
    let releaseFinish = () => {};
    const gate = deferred();
    const s2Gate = deferred();
    let running = 0;
    let most = 0;
    try {
      const queue = track(makeQueue(prefix, { connection: proxy.url }));
      const firstTurn = deferred();
      const rec = recorder(async (turn) => {
        running += 1;
        most = Math.max(most, running);
        try {
          if (turn.sessionKey === 's1' && turn.items[0]?.eventId === 'm1') {
            firstTurn.resolve();
            await gate.promise;
            releaseFinish = proxy.hold('hermes-worker');
          }
          if (turn.sessionKey === 's2') await s2Gate.promise;
        } finally {
          running -= 1;
        }
      });
      await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failures().onFailed });
      await queue.submit(makeItem('s1', 'm1'));
      await firstTurn.promise;
      // Waits in s1's inbox: FINISH hands it over as the next turn.
      expect((await queue.submit(makeItem('s1', 'm2'))).status).toBe('queued');
      gate.resolve();
      await waitFor(() => proxy.heldChunks('hermes-worker') > 0, 'the FINISH of s1 held');
      // s1's FINISH is held: its slot is free, and s2 takes it (and keeps it).
      expect((await queue.submit(makeItem('s2', 'm1'))).status).toBe('started');
      await waitFor(() => running === 1, 's2 running');
      releaseFinish();
      // FINISH hands s1's next turn back, no local slot is free: it runs as a BullMQ job.
      await waitFor(() => rec.handled('s1').length === 2, 'second turn of s1 done');
      expect(rec.handled('s1')).toEqual(['m1', 'm2']);
      // Its handler never started before the hand-back: still its first attempt.
      expect(rec.turns.find((turn) => turn.eventIds[0] === 'm2')?.attempt).toBe(1);
      expect(await redis.get(`${prefix}:turns:id`)).toBe('1');
      s2Gate.resolve();
      await waitFor(() => rec.handled('s2').length === 1, 's2 handled');
      expect(most).toBe(2);
    } finally {
      gate.resolve();
      s2Gate.resolve();
      releaseFinish();
      await Promise.all(open.splice(0).map((queue) => queue.close({ graceMs: 100 })));
      await proxy.close();
    }
  });

  it('the sweep schedules a session whose job went missing', async () => {
    const prefix = freshPrefix();
    const producer = track(makeQueue(prefix));
    await producer.submit(makeItem('s', 'orphan'));
    const bull = new Queue('turns', { connection: redis, prefix });
    try {
      await bull.drain();
      expect(await bull.getWaitingCount()).toBe(0);
    } finally {
      await bull.close();
    }
    const worker = track(makeQueue(prefix));
    const rec = recorder();
    await worker.startWorkers(rec.handler, { concurrency: 1, onFailed: failures().onFailed });
    await waitFor(() => rec.handled('s').length === 1, 'orphaned item handled');
    expect(await worker.sweep()).toBe(0);
  });

  it('leaves no per-session keys behind once sessions are idle', async () => {
    const prefix = freshPrefix();
    const queue = track(makeQueue(prefix, { busyInputMode: 'steer' }));
    const gate = deferred();
    const rec = recorder(async (turn: TurnContext, record) => {
      if (turn.items[0]?.eventId !== 'm1') return;
      await gate.promise;
      record.steered.push(...(await turn.takeSteering()).map((item) => item.eventId));
    });
    await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failures().onFailed });
    await queue.submit(makeItem('a', 'm1'));
    await waitFor(() => rec.turns.length === 1, 'turn running');
    await queue.submit(makeItem('a', 'm2'));
    await queue.submit(makeItem('b', 'm1'));
    gate.resolve();
    await waitFor(() => rec.handled().length === 3, 'all handled');
    await waitFor(async () => (await redis.hlen(`${prefix}:gw:turns:sessions`)) === 0, 'sessions idle');
    const leftovers = (await keysUnder(redis, `${prefix}:gw`)).filter(
      (key) => !key.includes(':seen:') && !key.endsWith(':depth'),
    );
    expect(leftovers).toEqual([]);
    expect(await queue.depth()).toBe(0);
  });
});
