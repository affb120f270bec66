import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import { DedupeWindow } from '../../../src/gateway/queue/dedupe-window.js';
import { createEmbeddedTurnQueue } from '../../../src/gateway/queue/embedded-turn-queue.js';
import { aborted, deferred, failures, makeItem, recorder, waitFor } from './queue-test-kit.js';
import { describeTurnQueueConformance } from './turn-queue-conformance.js';

const logger = pino({ level: 'silent' });

describeTurnQueueConformance('embedded', async (options) => createEmbeddedTurnQueue({ logger, ...options }));

describe('embedded turn queue', () => {
  it('reports items that never ran (and a turn cut off by shutdown) through onFailed at close', async () => {
    const queue = createEmbeddedTurnQueue({ logger, abortWaitMs: 2_000 });
    const rec = recorder(async (turn) => {
      await aborted(turn.signal);
      throw turn.signal.reason;
    });
    const failed = failures();
    await queue.startWorkers(rec.handler, { concurrency: 1, onFailed: failed.onFailed });
    await queue.submit(makeItem('s1', 'running'));
    await waitFor(() => rec.turns.length === 1, 'turn running');
    await queue.submit(makeItem('s1', 'waiting'));
    await queue.submit(makeItem('s2', 'never-started'));
    await queue.close({ graceMs: 20 });
    const reported = failed.list.map((entry) => [entry.sessionKey, entry.eventIds]);
    expect(reported).toEqual(
      expect.arrayContaining([
        ['s1', ['running']],
        ['s1', ['waiting']],
        ['s2', ['never-started']],
      ]),
    );
    expect(reported).toHaveLength(3);
    for (const entry of failed.list) expect(isHermesError(entry.error, 'queue_closed')).toBe(true);
    expect(await queue.depth()).toBe(0);
  });

  it('shares worker slots fairly: a busy session goes to the back of the line', async () => {
    const queue = createEmbeddedTurnQueue({ logger });
    const gate = deferred();
    const rec = recorder(async (turn) => {
      if (turn.items[0]?.eventId === 'a1') await gate.promise;
    });
    await queue.startWorkers(rec.handler, { concurrency: 1, onFailed: failures().onFailed });
    await queue.submit(makeItem('a', 'a1'));
    await waitFor(() => rec.turns.length === 1, 'a1 running');
    await queue.submit(makeItem('a', 'a2'));
    await queue.submit(makeItem('b', 'b1'));
    gate.resolve();
    await waitFor(() => rec.handled().length === 3, 'all handled');
    expect(rec.turns.map((turn) => turn.eventIds[0])).toEqual(['a1', 'b1', 'a2']);
    await queue.close();
  });

  it('rejects a second startWorkers and a bad concurrency', async () => {
    const queue = createEmbeddedTurnQueue({ logger });
    const rec = recorder();
    await expect(
      queue.startWorkers(rec.handler, { concurrency: 0, onFailed: failures().onFailed }),
    ).rejects.toSatisfy((error) => isHermesError(error, 'queue_failed'));
    await queue.startWorkers(rec.handler, { concurrency: 1, onFailed: failures().onFailed });
    await expect(
      queue.startWorkers(rec.handler, { concurrency: 1, onFailed: failures().onFailed }),
    ).rejects.toSatisfy((error) => isHermesError(error, 'queue_failed'));
    await queue.close();
  });
});

describe('DedupeWindow', () => {
  it('forgets keys after the window and never holds more than the cap', () => {
    let now = 1_000;
    const window = new DedupeWindow({ windowMs: 100, maxEntries: 3, now: () => now });
    expect(window.firstSeen('a')).toBe(true);
    expect(window.firstSeen('a')).toBe(false);
    now += 100;
    expect(window.firstSeen('a')).toBe(true);
    for (const key of ['b', 'c', 'd', 'e']) window.firstSeen(key);
    expect(window.size).toBe(3);
    expect(window.firstSeen('e')).toBe(false);
    expect(window.firstSeen('a')).toBe(true);
  });
});
