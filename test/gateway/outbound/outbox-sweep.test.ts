import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../../src/gateway/events/gateway-event.js';
import { createOutboxSweep } from '../../../src/gateway/outbound/outbox-sweep.js';
import { outboxId } from '../../../src/gateway/store/gateway-store.js';
import type { SqliteGatewayStore } from '../../../src/gateway/store/sqlite-gateway-store.js';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import { silentLogger } from '../../helpers/test-config.js';
import { type ManualClock, manualClock, storeFixture } from '../store/store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

const SESSION = 'agent:main:test:dm:c1';
const ORIGIN = { platform: 'test', chatType: 'dm', chatId: 'c1', replyToMessageId: 'm1' };

async function enqueue(store: SqliteGatewayStore, turnId: string, kind: 'final' | 'failed' = 'final') {
  await store.enqueueOutbox({
    id: outboxId(kind, turnId),
    platform: 'test',
    sessionKey: SESSION,
    turnId,
    eventIds: ['test:e1'],
    origin: ORIGIN,
    kind,
    text: `${kind} of ${turnId}`,
  });
}

/** A sweep whose dispatch records events and completes them unless told to fail. */
function setup(clock: ManualClock, options: { maxAttempts?: number } = {}) {
  const store = fixture.fresh(clock);
  const adapters = new Map([['test', createTestAdapter()]]);
  const dispatched: GatewayEvent[] = [];
  const state = { failing: false };
  const sweep = createOutboxSweep(
    { store, logger: silentLogger, now: clock.now },
    adapters,
    async (_adapter, event) => {
      dispatched.push(event);
      if (!state.failing)
        await store.completeOutbox(outboxId(event.type as 'final' | 'failed', event.turnId));
    },
    { minAgeMs: 5_000, maxAttempts: options.maxAttempts ?? 3, retryBaseMs: 1_000, retryMaxMs: 4_000 },
  );
  return { store, sweep, dispatched, state };
}

describe('outbox sweep', () => {
  it('leaves young entries to their live event and replays older ones as turn events', async () => {
    const clock = manualClock();
    const { store, sweep, dispatched } = setup(clock);
    await enqueue(store, 't1');
    await enqueue(store, 't2', 'failed');
    await sweep.run();
    expect(dispatched).toHaveLength(0);
    clock.advance(5_000);
    await sweep.run();
    expect(dispatched).toStrictEqual([
      {
        type: 'final',
        turnId: 't1',
        sessionKey: SESSION,
        eventIds: ['test:e1'],
        origin: ORIGIN,
        text: 'final of t1',
      },
      {
        type: 'failed',
        turnId: 't2',
        sessionKey: SESSION,
        eventIds: ['test:e1'],
        origin: ORIGIN,
        code: 'recovered',
        message: 'failed of t2',
      },
    ]);
    await sweep.run({ minAgeMs: 0 });
    expect(dispatched).toHaveLength(2);
  });

  it('retries an undelivered entry with growing waits, then abandons it', async () => {
    const clock = manualClock();
    const { store, sweep, dispatched, state } = setup(clock);
    state.failing = true;
    await enqueue(store, 't1');
    await sweep.run({ minAgeMs: 0 });
    expect(dispatched).toHaveLength(1);
    clock.advance(999);
    await sweep.run({ minAgeMs: 0 });
    expect(dispatched).toHaveLength(1); // waits 1 s after the first attempt
    clock.advance(1);
    await sweep.run({ minAgeMs: 0 });
    expect(dispatched).toHaveLength(2);
    clock.advance(1_999);
    await sweep.run({ minAgeMs: 0 });
    expect(dispatched).toHaveLength(2); // then 2 s
    clock.advance(1);
    await sweep.run({ minAgeMs: 0 });
    expect(dispatched).toHaveLength(3);
    expect(await store.getOutbox('final:t1')).toMatchObject({
      attempts: 3,
      completed: { outcome: 'abandoned' },
    });
    clock.advance(60_000);
    await sweep.run({ minAgeMs: 0 });
    expect(dispatched).toHaveLength(3);
  });

  it('completes an entry delivered on a later attempt', async () => {
    const clock = manualClock();
    const { store, sweep, dispatched, state } = setup(clock);
    state.failing = true;
    await enqueue(store, 't1');
    await sweep.run({ minAgeMs: 0 });
    state.failing = false;
    clock.advance(1_000);
    await sweep.run({ minAgeMs: 0 });
    expect(dispatched).toHaveLength(2);
    expect(await store.getOutbox('final:t1')).toMatchObject({
      attempts: 2,
      completed: { outcome: 'delivered' },
    });
  });

  it('runs no pass after stop, and joins a pass already running', async () => {
    const clock = manualClock();
    const { store, sweep, dispatched } = setup(clock);
    await enqueue(store, 't1');
    const a = sweep.run({ minAgeMs: 0 });
    const b = sweep.run({ minAgeMs: 0 });
    expect(a).toBe(b);
    await a;
    await enqueue(store, 't2');
    await sweep.stop();
    await sweep.run({ minAgeMs: 0 });
    expect(dispatched.map((e) => e.turnId)).toEqual(['t1']);
  });
});
