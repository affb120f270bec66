import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import { type BullmqTurnQueue, createBullmqTurnQueue } from '../../../src/gateway/queue/bullmq-turn-queue.js';
import { failures, makeItem, recorder, waitFor } from './queue-test-kit.js';
import { deleteUnder, REDIS_URL, TEST_QUEUE_TIMING, uniquePrefix } from './redis-test-kit.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/crash-worker.ts', import.meta.url));
const logger = pino({ level: 'silent' });

interface ChildEvent {
  readonly type: 'ready' | 'started';
  readonly pid: number;
  readonly turnId?: string;
  readonly attempt?: number;
  readonly eventIds?: string[];
}

let redis: Redis;
const prefixes: string[] = [];
const children = new Set<ChildProcess>();
const queues: BullmqTurnQueue[] = [];

beforeAll(() => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
});

afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  await Promise.all(queues.splice(0).map((queue) => queue.close({ graceMs: 100 })));
});

afterAll(async () => {
  for (const prefix of prefixes) await deleteUnder(redis, prefix);
  await redis.quit();
});

function setup(maxAttempts: number) {
  const prefix = uniquePrefix();
  prefixes.push(prefix);
  const eventsKey = `${prefix}:test:events`;
  const events = async (): Promise<ChildEvent[]> =>
    (await redis.lrange(eventsKey, 0, -1)).map((line) => JSON.parse(line) as ChildEvent);
  const queue = createBullmqTurnQueue({
    logger,
    connection: REDIS_URL,
    prefix,
    maxAttempts,
    backoffMs: 10,
    ...TEST_QUEUE_TIMING,
  });
  queues.push(queue);

  /** Starts a worker process, waits until it is ready and returns it. */
  const startChild = async (extraEnv: Record<string, string> = {}): Promise<ChildProcess> => {
    let stderr = '';
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
      env: {
        ...process.env,
        QUEUE_PREFIX: prefix,
        REDIS_URL,
        EVENTS_KEY: eventsKey,
        LOCK_MS: String(TEST_QUEUE_TIMING.lockDurationMs),
        STALLED_MS: String(TEST_QUEUE_TIMING.stalledIntervalMs),
        MAX_ATTEMPTS: String(maxAttempts),
        ...extraEnv,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.add(child);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const pid = child.pid;
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`crash worker exited early: ${stderr}`);
        return (await events()).some((event) => event.type === 'ready' && event.pid === pid);
      },
      'crash worker ready',
      30_000,
    );
    return child;
  };

  const kill = async (child: ChildProcess): Promise<void> => {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
    children.delete(child);
  };

  return { queue, events, startChild, kill, prefix };
}

describe('bullmq turn queue: a worker killed mid-turn', () => {
  it('another worker resumes the turn with attempt 2 and the same items; one completion', async () => {
    const { queue, events, startChild, kill } = setup(3);
    const child = await startChild();
    expect((await queue.submit(makeItem('s', 'm1'))).status).toBe('started');
    await waitFor(
      async () => (await events()).some((event) => event.type === 'started'),
      'child took the turn',
    );
    expect((await queue.submit(makeItem('s', 'm2'))).status).toBe('queued');
    await kill(child);

    const completions: string[] = [];
    const rec = recorder(async (turn) => {
      completions.push(turn.turnId);
    });
    const failed = failures();
    await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failed.onFailed });
    await waitFor(() => rec.handled('s').length === 2, 'both turns finished here', 45_000);

    const started = (await events()).filter((event) => event.type === 'started');
    expect(started).toHaveLength(1);
    const crashed = started[0]!;
    expect(crashed.eventIds).toEqual(['m1']);
    expect(rec.turns.map((turn) => [turn.turnId, turn.eventIds, turn.attempt])).toEqual([
      [crashed.turnId, ['m1'], 2],
      [expect.any(String), ['m2'], 1],
    ]);
    expect(completions.filter((turnId) => turnId === crashed.turnId)).toHaveLength(1);
    expect(failed.list).toEqual([]);
    expect(await queue.depth()).toBe(0);
  }, 90_000);

  it('a turn run locally (no BullMQ job) by a process that dies is recovered by the sweep of another', async () => {
    const { queue, events, startChild, kill, prefix } = setup(3);
    const child = await startChild({ CONCURRENCY: '2', SUBMIT_EVENT: 'local1' });
    await waitFor(
      async () => (await events()).some((event) => event.type === 'started'),
      'child took its own message',
    );
    // Local-first: the child ran the turn without adding a job (BullMQ's job id counter is unset).
    expect(await redis.get(`${prefix}:turns:id`)).toBeNull();
    expect((await queue.submit(makeItem('s', 'm2'))).status).toBe('queued');
    await kill(child);

    const rec = recorder();
    const failed = failures();
    await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failed.onFailed });
    await waitFor(() => rec.handled('s').length === 2, 'both turns finished here', 45_000);
    const crashed = (await events()).filter((event) => event.type === 'started');
    expect(crashed).toHaveLength(1);
    expect(rec.turns.map((turn) => [turn.turnId, turn.eventIds, turn.attempt])).toEqual([
      [crashed[0]!.turnId, ['local1'], 2],
      [expect.any(String), ['m2'], 1],
    ]);
    expect(failed.list).toEqual([]);
  }, 90_000);

  it('a turn that keeps killing its workers is reported through onFailed, not run forever', async () => {
    const { queue, events, startChild, kill } = setup(2);
    const first = await startChild();
    await queue.submit(makeItem('s', 'poison'));
    const startedCount = async () => (await events()).filter((event) => event.type === 'started').length;
    await waitFor(async () => (await startedCount()) === 1, 'first worker took the turn');
    await kill(first);
    const second = await startChild();
    await waitFor(async () => (await startedCount()) === 2, 'second worker resumed the turn', 45_000);
    await kill(second);

    const rec = recorder();
    const failed = failures();
    await queue.startWorkers(rec.handler, { concurrency: 1, onFailed: failed.onFailed });
    await waitFor(() => failed.list.length === 1, 'turn reported', 45_000);
    expect(failed.list[0]!.eventIds).toEqual(['poison']);
    expect(isHermesError(failed.list[0]!.error, 'turn_failed')).toBe(true);
    expect(rec.turns).toEqual([]);
    const attempts = (await events())
      .filter((event) => event.type === 'started')
      .map((event) => event.attempt);
    expect(attempts).toEqual([1, 2]);

    await queue.submit(makeItem('s', 'after'));
    await waitFor(() => rec.handled('s').length === 1, 'the session still works');
  }, 120_000);
});
