import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import type { TurnQueue, TurnQueueOptions } from '../../../src/gateway/queue/turn-queue.js';
import { aborted, deferred, failures, makeItem, recorder, sleep, waitFor } from './queue-test-kit.js';

/** Builds a fresh queue (its own Redis prefix for BullMQ); the suite closes it after each test. */
export type TurnQueueFactory = (options: Partial<Omit<TurnQueueOptions, 'logger'>>) => Promise<TurnQueue>;

/** The contract both queue implementations keep. */
export function describeTurnQueueConformance(name: string, factory: TurnQueueFactory): void {
  describe(`TurnQueue conformance: ${name}`, () => {
    const open: TurnQueue[] = [];
    const make = async (options: Partial<Omit<TurnQueueOptions, 'logger'>> = {}) => {
      const queue = await factory({ backoffMs: 10, shutdownGraceMs: 2_000, abortWaitMs: 2_000, ...options });
      open.push(queue);
      return queue;
    };
    const session = (label: string) => `agent:main:test:dm:${label}-${randomUUID().slice(0, 8)}`;

    afterEach(async () => {
      await Promise.all(open.splice(0).map((queue) => queue.close({ graceMs: 100 })));
    });

    it('hands one session its items in arrival order, batching what arrives during a turn', async () => {
      const queue = await make();
      const key = session('order');
      const gate = deferred();
      const rec = recorder(async (turn) => {
        if (turn.items[0]?.eventId === 'm1') await gate.promise;
      });
      const failed = failures();
      await queue.startWorkers(rec.handler, { concurrency: 4, onFailed: failed.onFailed });

      expect(await queue.submit(makeItem(key, 'm1'))).toEqual({ status: 'started' });
      await waitFor(() => rec.turns.length === 1, 'first turn started');
      expect(queue.activeTurns()).toBe(1);
      for (const id of ['m2', 'm3', 'm4']) {
        expect(await queue.submit(makeItem(key, id))).toEqual({ status: 'queued' });
      }
      expect(await queue.depth()).toBe(3);
      gate.resolve();
      await waitFor(() => rec.handled(key).length === 4, 'all four handled');
      expect(rec.turns.map((turn) => turn.eventIds)).toEqual([['m1'], ['m2', 'm3', 'm4']]);
      expect(rec.turns.map((turn) => turn.attempt)).toEqual([1, 1]);
      expect(await queue.depth()).toBe(0);
      expect(failed.list).toEqual([]);
    });

    it('says which sessions have a turn running, and none once it ended', async () => {
      const queue = await make();
      const [busy, idle] = [session('busy'), session('idle')];
      const gate = deferred();
      const rec = recorder(async () => {
        await gate.promise;
      });
      await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failures().onFailed });
      expect([...(await queue.runningSessions([busy, idle]))]).toEqual([]);
      await queue.submit(makeItem(busy, 'r1'));
      await waitFor(() => rec.turns.length === 1, 'turn started');
      expect([...(await queue.runningSessions([busy, idle]))]).toEqual([busy]);
      expect([...(await queue.runningSessions([]))]).toEqual([]);
      gate.resolve();
      await waitFor(() => rec.handled(busy).length === 1, 'turn handled');
      await waitFor(async () => (await queue.runningSessions([busy])).size === 0, 'no longer running');
    });

    it('mints time-ordered turn ids (UUIDv7), so the store keys made from them sort by time', async () => {
      const queue = await make();
      const rec = recorder();
      await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failures().onFailed });
      for (let index = 0; index < 4; index += 1) {
        await queue.submit(makeItem(session(`ids${index}`), `e${index}`));
        await waitFor(() => rec.handled().length === index + 1, `turn ${index} handled`);
        await sleep(2);
      }
      const ids = rec.turns.map((turn) => turn.turnId);
      for (const id of ids)
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect([...ids].sort()).toEqual(ids);
    });

    it('keeps arrival order per session under interleaved load, each item exactly once', async () => {
      const queue = await make();
      const keys = [session('a'), session('b'), session('c')];
      const rec = recorder(async () => {
        await sleep(2);
      });
      await queue.startWorkers(rec.handler, { concurrency: 3, onFailed: failures().onFailed });
      const sent = new Map<string, string[]>(keys.map((key) => [key, []]));
      for (let index = 0; index < 30; index += 1) {
        const key = keys[index % keys.length]!;
        const eventId = `e${index}`;
        sent.get(key)!.push(eventId);
        await queue.submit(makeItem(key, eventId));
        if (index % 4 === 0) await sleep(3);
      }
      await waitFor(() => rec.handled().length === 30, 'all 30 handled');
      for (const key of keys) expect(rec.handled(key)).toEqual(sent.get(key));
    });

    it('never overlaps turns of one session, while different sessions run in parallel', async () => {
      const queue = await make();
      const [a, b] = [session('a'), session('b')];
      const active = new Map<string, number>();
      let maxPerSession = 0;
      let sawParallel = false;
      const rec = recorder(async (turn) => {
        const now = (active.get(turn.sessionKey) ?? 0) + 1;
        active.set(turn.sessionKey, now);
        maxPerSession = Math.max(maxPerSession, now);
        const other = turn.sessionKey === a ? b : a;
        const deadline = Date.now() + 2_000;
        while (!sawParallel && (active.get(other) ?? 0) === 0 && Date.now() < deadline) await sleep(5);
        if ((active.get(other) ?? 0) > 0) sawParallel = true;
        await sleep(5);
        active.set(turn.sessionKey, (active.get(turn.sessionKey) ?? 1) - 1);
      });
      await queue.startWorkers(rec.handler, { concurrency: 4, onFailed: failures().onFailed });
      for (let index = 0; index < 8; index += 1) {
        await queue.submit(makeItem(a, `a${index}`));
        await queue.submit(makeItem(b, `b${index}`));
        await sleep(4);
      }
      await waitFor(() => rec.handled().length === 16, 'all 16 handled');
      expect(maxPerSession).toBe(1);
      expect(sawParallel).toBe(true);
      expect(rec.handled(a)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((n) => `a${n}`));
    });

    it('interrupt mode aborts the running turn and runs the new message next', async () => {
      const queue = await make({ busyInputMode: 'interrupt' });
      const key = session('interrupt');
      const rec = recorder(async (turn) => {
        if (turn.items[0]?.eventId !== 'm1') return;
        await aborted(turn.signal);
        throw turn.signal.reason; // a runner that stops by throwing is not retried nor reported
      });
      const failed = failures();
      await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failed.onFailed });
      expect((await queue.submit(makeItem(key, 'm1'))).status).toBe('started');
      await waitFor(() => rec.turns.length === 1, 'first turn running');
      expect((await queue.submit(makeItem(key, 'm2'))).status).toBe('interrupting');
      await waitFor(() => rec.handled(key).length === 2, 'both turns ended');
      expect(rec.turns.map((turn) => [turn.eventIds, turn.abortReason])).toEqual([
        [['m1'], 'interrupt'],
        [['m2'], undefined],
      ]);
      expect(failed.list).toEqual([]);
    });

    it('a resume item never interrupts or steers; it waits for the next turn', async () => {
      const queue = await make({ busyInputMode: 'interrupt' });
      const key = session('resume');
      const gate = deferred();
      const rec = recorder(async (turn) => {
        if (turn.items[0]?.eventId === 'm1') await gate.promise;
      });
      await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failures().onFailed });
      await queue.submit(makeItem(key, 'm1'));
      await waitFor(() => rec.turns.length === 1, 'first turn running');
      expect(
        (await queue.submit(makeItem(key, 'r1', { kind: 'resume', payload: { turn: 'x' } }))).status,
      ).toBe('queued');
      gate.resolve();
      await waitFor(() => rec.handled(key).length === 2, 'resume handled');
      expect(rec.turns.map((turn) => [turn.eventIds, turn.abortReason])).toEqual([
        [['m1'], undefined],
        [['r1'], undefined],
      ]);
    });

    it('a solo item is a turn of its own: never merged, never steering, run in arrival order', async () => {
      for (const busyInputMode of ['queue', 'steer', 'interrupt'] as const) {
        const queue = await make({ busyInputMode });
        const key = session(`solo-${busyInputMode}`);
        const gate = deferred();
        const rec = recorder(async (turn, record) => {
          if (turn.items[0]?.eventId === 's1') await gate.promise;
          for (const item of await turn.takeSteering()) record.steered.push(item.eventId);
        });
        await queue.startWorkers(rec.handler, { concurrency: 4, onFailed: failures().onFailed });
        const solo = (id: string) => ({ ...makeItem(key, id), solo: true });
        expect((await queue.submit(solo('s1'))).status).toBe('started');
        await waitFor(() => rec.turns.length === 1, 'first solo turn running');
        for (const id of ['s2', 's3']) expect((await queue.submit(solo(id))).status).toBe('queued');
        await queue.submit(makeItem(key, 'm4'));
        await queue.submit(makeItem(key, 'm5'));
        expect((await queue.submit(solo('s6'))).status).toBe('queued');
        gate.resolve();
        await waitFor(() => rec.handled(key).length === 6, `all six handled (${busyInputMode})`);
        const turns = rec.turns.map((turn) => [...turn.eventIds, ...turn.steered]);
        // Chat messages that arrive together may still share a turn; solo items never do.
        expect(turns.filter((ids) => ids.some((id) => id.startsWith('s')))).toEqual([
          ['s1'],
          ['s2'],
          ['s3'],
          ['s6'],
        ]);
        expect(turns.flat()).toEqual(['s1', 's2', 's3', 'm4', 'm5', 's6']);
        expect(rec.turns.every((turn) => turn.abortReason === undefined)).toBe(true);
      }
    });

    it('steer mode hands new messages to takeSteering (up to a resume item)', async () => {
      const queue = await make({ busyInputMode: 'steer' });
      const key = session('steer');
      const submitted = deferred();
      let steered: string[] = [];
      const rec = recorder(async (turn, record) => {
        if (turn.items[0]?.eventId !== 'm1') return;
        await submitted.promise;
        steered = (await turn.takeSteering()).map((item) => item.eventId);
        record.steered.push(...steered);
        expect(await turn.takeSteering()).toEqual([]);
      });
      await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failures().onFailed });
      await queue.submit(makeItem(key, 'm1'));
      await waitFor(() => rec.turns.length === 1, 'first turn running');
      expect((await queue.submit(makeItem(key, 'm2'))).status).toBe('steered');
      expect((await queue.submit(makeItem(key, 'm3'))).status).toBe('steered');
      expect((await queue.submit(makeItem(key, 'r4', { kind: 'resume' }))).status).toBe('queued');
      expect((await queue.submit(makeItem(key, 'm5'))).status).toBe('steered');
      submitted.resolve();
      await waitFor(() => rec.handled(key).length === 5, 'everything handled');
      expect(steered).toEqual(['m2', 'm3']);
      expect(rec.turns.map((turn) => turn.eventIds)).toEqual([['m1'], ['r4', 'm5']]);
    });

    it('steer mode runs messages the turn did not take as the next turn', async () => {
      const queue = await make({ busyInputMode: 'steer' });
      const key = session('steer-fallback');
      const gate = deferred();
      const rec = recorder(async (turn) => {
        if (turn.items[0]?.eventId === 'm1') await gate.promise;
      });
      await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failures().onFailed });
      await queue.submit(makeItem(key, 'm1'));
      await waitFor(() => rec.turns.length === 1, 'first turn running');
      expect((await queue.submit(makeItem(key, 'm2'))).status).toBe('steered');
      gate.resolve();
      await waitFor(() => rec.handled(key).length === 2, 'fallback turn handled');
      expect(rec.turns.map((turn) => turn.eventIds)).toEqual([['m1'], ['m2']]);
    });

    it('takeSteering is empty outside steer mode', async () => {
      const queue = await make({ busyInputMode: 'queue' });
      const key = session('no-steer');
      const gate = deferred();
      let taken: unknown[] = ['not called'];
      const rec = recorder(async (turn) => {
        if (turn.items[0]?.eventId !== 'm1') return;
        await gate.promise;
        taken = [...(await turn.takeSteering())];
      });
      await queue.startWorkers(rec.handler, { concurrency: 1, onFailed: failures().onFailed });
      await queue.submit(makeItem(key, 'm1'));
      await waitFor(() => rec.turns.length === 1, 'first turn running');
      await queue.submit(makeItem(key, 'm2'));
      gate.resolve();
      await waitFor(() => rec.handled(key).length === 2, 'both handled');
      expect(taken).toEqual([]);
      expect(rec.turns.map((turn) => turn.eventIds)).toEqual([['m1'], ['m2']]);
    });

    it('runs an event id once, within a session, even while its turn runs', async () => {
      const queue = await make();
      const [key, other] = [session('dedupe'), session('dedupe-other')];
      const gate = deferred();
      const rec = recorder(async (turn) => {
        if (turn.items[0]?.eventId === 'm1') await gate.promise;
      });
      await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failures().onFailed });
      expect((await queue.submit(makeItem(key, 'm1'))).status).toBe('started');
      expect((await queue.submit(makeItem(key, 'm1'))).status).toBe('duplicate');
      await waitFor(() => rec.turns.length === 1, 'first turn running');
      expect((await queue.submit(makeItem(key, 'm1'))).status).toBe('duplicate');
      expect((await queue.submit(makeItem(other, 'm1'))).status).toBe('started');
      gate.resolve();
      await waitFor(() => rec.handled().length === 2, 'both sessions handled');
      expect(rec.handled(key)).toEqual(['m1']);
      expect(await queue.depth()).toBe(0);
    });

    it('skips dedupe for items marked dedupe: false (ids unique by construction)', async () => {
      const queue = await make();
      const key = session('no-dedupe');
      const rec = recorder();
      await queue.startWorkers(rec.handler, { concurrency: 1, onFailed: failures().onFailed });
      expect((await queue.submit({ ...makeItem(key, 'fresh'), dedupe: false })).status).toBe('started');
      await waitFor(() => rec.handled(key).length === 1, 'first run');
      expect((await queue.submit({ ...makeItem(key, 'fresh'), dedupe: false })).status).not.toBe('duplicate');
      await waitFor(() => rec.handled(key).length === 2, 'second run');
    });

    it('forgets event ids after the dedupe window', async () => {
      const queue = await make({ dedupeWindowMs: 150 });
      const key = session('window');
      const rec = recorder();
      await queue.startWorkers(rec.handler, { concurrency: 1, onFailed: failures().onFailed });
      expect((await queue.submit(makeItem(key, 'same'))).status).toBe('started');
      await waitFor(() => rec.handled(key).length === 1, 'first run');
      let status = 'duplicate';
      await waitFor(async () => {
        status = (await queue.submit(makeItem(key, 'same'))).status;
        return status !== 'duplicate';
      }, 'the window to pass');
      expect(status).toBe('started');
      await waitFor(() => rec.handled(key).length === 2, 'second run');
    });

    it('retries a throwing turn with the same items, then reports it through onFailed', async () => {
      const queue = await make({ maxAttempts: 3 });
      const key = session('fail');
      const boom = new Error('model exploded');
      const rec = recorder(async (turn) => {
        if (turn.items.some((item) => item.eventId === 'bad')) throw boom;
      });
      const failed = failures();
      await queue.startWorkers(rec.handler, { concurrency: 1, onFailed: failed.onFailed });
      await queue.submit(makeItem(key, 'bad'));
      await waitFor(() => failed.list.length === 1, 'onFailed');
      expect(rec.turns.map((turn) => [turn.eventIds, turn.attempt])).toEqual([
        [['bad'], 1],
        [['bad'], 2],
        [['bad'], 3],
      ]);
      expect(new Set(rec.turns.map((turn) => turn.turnId)).size).toBe(1);
      expect(failed.list[0]).toEqual({ sessionKey: key, eventIds: ['bad'], error: boom });
      // The session is not wedged: the next message runs normally.
      await queue.submit(makeItem(key, 'good'));
      await waitFor(() => rec.turns.some((turn) => turn.eventIds[0] === 'good' && turn.ended), 'next turn');
      expect(failed.list).toHaveLength(1);
    });

    it('a turn that fails once and then succeeds is not reported', async () => {
      const queue = await make({ maxAttempts: 3 });
      const key = session('flaky');
      const rec = recorder(async (turn) => {
        if (turn.attempt === 1) throw new Error('transient');
      });
      const failed = failures();
      await queue.startWorkers(rec.handler, { concurrency: 1, onFailed: failed.onFailed });
      await queue.submit(makeItem(key, 'm1'));
      await waitFor(() => rec.turns.filter((turn) => turn.ended).length === 2, 'second attempt');
      expect(rec.turns.map((turn) => [turn.eventIds, turn.attempt])).toEqual([
        [['m1'], 1],
        [['m1'], 2],
      ]);
      expect(failed.list).toEqual([]);
    });

    it('counts waiting items in depth() before workers start', async () => {
      const queue = await make();
      const key = session('depth');
      await queue.submit(makeItem(key, 'm1'));
      await queue.submit(makeItem(key, 'm2'));
      await queue.submit(makeItem(session('depth-2'), 'm1'));
      expect(await queue.depth()).toBe(3);
      const rec = recorder();
      await queue.startWorkers(rec.handler, { concurrency: 2, onFailed: failures().onFailed });
      await waitFor(() => rec.handled().length === 3, 'all handled');
      expect(rec.turns.find((turn) => turn.sessionKey === key)?.eventIds).toEqual(['m1', 'm2']);
      expect(await queue.depth()).toBe(0);
      expect(await queue.health()).toEqual({ ok: true });
    });

    it('close() lets a running turn finish within the grace period and is idempotent', async () => {
      const queue = await make();
      const key = session('close');
      const release = deferred();
      const rec = recorder(async () => {
        await release.promise;
      });
      await queue.startWorkers(rec.handler, { concurrency: 1, onFailed: failures().onFailed });
      await queue.submit(makeItem(key, 'm1'));
      await waitFor(() => rec.turns.length === 1, 'turn running');
      const first = queue.close({ graceMs: 10_000 });
      expect(queue.close()).toBe(first);
      await sleep(20);
      release.resolve();
      await first;
      expect(rec.turns[0]).toMatchObject({ ended: true, abortReason: undefined });
      await expect(queue.submit(makeItem(key, 'm2'))).rejects.toSatisfy((error) =>
        isHermesError(error, 'queue_closed'),
      );
      expect((await queue.health()).ok).toBe(false);
    });

    it('close() aborts a turn that outlives the grace period with reason shutdown', async () => {
      const queue = await make();
      const key = session('close-abort');
      const rec = recorder(async (turn) => {
        await aborted(turn.signal);
      });
      await queue.startWorkers(rec.handler, { concurrency: 1, onFailed: failures().onFailed });
      await queue.submit(makeItem(key, 'm1'));
      await waitFor(() => rec.turns.length === 1, 'turn running');
      await queue.close({ graceMs: 50 });
      expect(rec.turns[0]).toMatchObject({ ended: true, abortReason: 'shutdown' });
      expect(queue.activeTurns()).toBe(0);
    });

    it('rejects a malformed item at the boundary', async () => {
      const queue = await make();
      const bad = { ...makeItem(session('bad'), 'x'), kind: 'bogus' } as unknown as Parameters<
        TurnQueue['submit']
      >[0];
      await expect(queue.submit(bad)).rejects.toSatisfy((error) => isHermesError(error, 'queue_failed'));
    });
  });
}
