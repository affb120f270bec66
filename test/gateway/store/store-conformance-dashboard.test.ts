import { afterEach, describe, expect, it } from 'vitest';
import type { OutboxInput } from '../../../src/gateway/store/gateway-store.js';
import { MAX_TURN_FAILURE_MESSAGE } from '../../../src/gateway/store/turn-failure-store.js';
import { storeBackends } from './store-backends.js';
import { manualClock } from './store-fixture.js';

/*
 * Store conformance, part 4: what the operator dashboard reads across processes — failed turns
 * (first record of a turn wins, newest listed first, long messages cut) and the outbox of every
 * platform at once (pending oldest first, given up on most recent first).
 */

const KEY = 'agent:main:telegram:dm:42';

function outbox(id: string, platform: string, overrides: Partial<OutboxInput> = {}): OutboxInput {
  return {
    id,
    platform,
    sessionKey: `agent:main:${platform}:dm:42`,
    turnId: id.replace(/^\w+:/, ''),
    origin: { platform, chatType: 'dm', chatId: '42' },
    kind: 'final',
    text: 'the answer',
    ...overrides,
  };
}

for (const backend of storeBackends()) {
  describe.skipIf(backend.skip !== undefined)(
    `gateway store conformance (${backend.name}${backend.skip ? `: skipped, ${backend.skip}` : ''}): dashboard views`,
    () => {
      afterEach(() => backend.cleanup());

      it('keeps failed turns, the first record of a turn only, newest first, messages cut', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        const base = { sessionKey: KEY, platform: 'telegram', code: 'model_unreachable' };
        expect(await store.recordTurnFailure({ ...base, turnId: 't1', message: 'first' })).toBe(true);
        expect(await store.recordTurnFailure({ ...base, turnId: 't1', message: 'again' })).toBe(false);
        clock.advance(1000);
        await store.recordTurnFailure({
          ...base,
          turnId: 't2',
          platform: 'api_server',
          code: 'internal',
          message: 'x'.repeat(2000),
        });
        clock.advance(1000);
        await store.recordTurnFailure({ ...base, turnId: 't3', message: 'third', at: clock.now() - 5000 });
        const list = await store.listTurnFailures();
        expect(list.map((failure) => failure.turnId)).toEqual(['t2', 't1', 't3']);
        expect(list[1]).toEqual({ ...base, turnId: 't1', message: 'first', at: clock.now() - 2000 });
        expect(list[0]?.message.length).toBe(MAX_TURN_FAILURE_MESSAGE);
        expect(list[0]?.code).toBe('internal');
        expect(await store.listTurnFailures({ limit: 1 })).toHaveLength(1);
        await expect(
          store.recordTurnFailure({ ...base, turnId: '', message: 'no id' }),
        ).rejects.toMatchObject({ code: 'store_failed' });
      });

      it('lists the outbox of every platform: pending oldest first, abandoned most recent first', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        await store.enqueueOutbox(outbox('final:a', 'telegram'));
        clock.advance(10);
        await store.enqueueOutbox(outbox('failed:b', 'discord', { kind: 'failed', text: 'Sorry' }));
        clock.advance(10);
        await store.enqueueOutbox(outbox('final:c', 'webhook'));
        clock.advance(10);
        await store.enqueueOutbox(outbox('final:d', 'feishu'));
        await store.completeOutbox('final:c', 'abandoned');
        clock.advance(10);
        await store.completeOutbox('final:a', 'abandoned');
        await store.completeOutbox('final:d', 'delivered');
        const pending = await store.listRecentOutbox({ state: 'pending' });
        expect(pending.map((entry) => entry.id)).toEqual(['failed:b']);
        const abandoned = await store.listRecentOutbox({ state: 'abandoned' });
        expect(abandoned.map((entry) => entry.id)).toEqual(['final:a', 'final:c']);
        expect(abandoned[0]?.completed).toEqual({ outcome: 'abandoned', at: clock.now() });
        expect(await store.listRecentOutbox({ state: 'abandoned', limit: 1 })).toHaveLength(1);
      });
    },
  );
}
