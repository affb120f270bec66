import { afterEach, describe, expect, it } from 'vitest';
import type { ActionPromptInput, OutboxInput } from '../../../src/gateway/store/gateway-store.js';
import { storeBackends } from './store-backends.js';
import { manualClock } from './store-fixture.js';

/*
 * Store conformance, part 2: dedupe, receipts, pairing, parked turns, action prompts, delivery
 * failures, home channels, the outbox and pruning — every atomic "exactly one caller wins"
 * operation raced against itself. Same cases for every backend.
 */

const KEY = 'agent:main:telegram:dm:42';
const DAY = 24 * 60 * 60 * 1000;

function prompt(overrides: Partial<ActionPromptInput> = {}): ActionPromptInput {
  return {
    promptId: 'p1',
    kind: 'approval',
    platform: 'telegram',
    chatId: '42',
    messageId: '1001',
    sessionKey: KEY,
    turnId: 't1',
    parkId: 'park1',
    requestId: 'r1',
    userId: 'u1',
    ...overrides,
  };
}

function outbox(overrides: Partial<OutboxInput> = {}): OutboxInput {
  return {
    id: 'final:t1',
    platform: 'telegram',
    sessionKey: KEY,
    turnId: 't1',
    eventIds: ['e1'],
    origin: { platform: 'telegram', chatType: 'dm', chatId: '42', userId: 'u1' },
    kind: 'final',
    text: 'the answer',
    ...overrides,
  };
}

for (const backend of storeBackends()) {
  describe.skipIf(backend.skip !== undefined)(
    `gateway store conformance (${backend.name}${backend.skip ? `: skipped, ${backend.skip}` : ''}): ledger and control`,
    () => {
      afterEach(() => backend.cleanup());

      it('dedupes inbound events for their window, once across concurrent callers, and releases them', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        const first = await Promise.all(
          Array.from({ length: 8 }, () => store.markEventProcessed('telegram', 'u1', 1000)),
        );
        expect(first.filter(Boolean)).toHaveLength(1);
        expect(await store.markEventProcessed('discord', 'u1', 1000)).toBe(true);
        clock.advance(1000);
        expect(await store.markEventProcessed('telegram', 'u1', 1000)).toBe(true);
        await store.releaseEvent('telegram', 'u1');
        expect(await store.markEventProcessed('telegram', 'u1', 1000)).toBe(true);
        await expect(store.markEventProcessed('telegram', 'u2', 0)).rejects.toMatchObject({
          code: 'store_failed',
        });
      });

      it('keeps the first delivery receipt of a key', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        const input = { receiptKey: 'turn-1', platform: 'telegram', chatId: '42', messageIds: ['7', '8'] };
        const results = await Promise.all([
          store.recordDelivery(input),
          store.recordDelivery({ ...input, messageIds: ['9'] }),
        ]);
        expect(results.filter((r) => r.created)).toHaveLength(1);
        const stored = await store.getDelivery('turn-1');
        expect(stored).toEqual(results.find((r) => r.created)?.receipt);
        expect(stored?.deliveredAt).toBe(clock.now());
        expect(await store.getDelivery('turn-2')).toBeUndefined();
      });

      it('pairs a user with a code exactly once and revokes', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        await store.addPairingCode({
          code: 'ab12cd',
          platform: 'telegram',
          userId: 'u9',
          userName: 'Zoe',
          expiresAt: clock.now() + 60_000,
        });
        await store.addPairingCode({
          code: 'ZZZZ99',
          platform: 'telegram',
          userId: 'u9',
          userName: undefined,
          expiresAt: clock.now() + 60_000,
        });
        expect((await store.listPairingCodes('telegram')).map((c) => c.code)).toEqual(['AB12CD', 'ZZZZ99']);
        const consumed = await Promise.all(
          Array.from({ length: 5 }, () => store.consumePairingCode('telegram', ' ab12cd ', 'admin')),
        );
        const winners = consumed.filter((user) => user !== undefined);
        expect(winners).toEqual([
          {
            platform: 'telegram',
            userId: 'u9',
            userName: 'Zoe',
            approvedBy: 'admin',
            approvedAt: clock.now(),
          },
        ]);
        expect(await store.listPairingCodes()).toEqual([]);
        expect(await store.isPairedUser('telegram', 'u9')).toBe(true);
        expect(await store.isPairedUser('discord', 'u9')).toBe(false);
        expect((await store.listPairedUsers()).map((u) => u.userId)).toEqual(['u9']);
        expect(await store.revokePairedUser('telegram', 'u9')).toBe(true);
        expect(await store.revokePairedUser('telegram', 'u9')).toBe(false);
        await store.addPairingCode({
          code: 'EXP1',
          platform: 'telegram',
          userId: 'u1',
          userName: undefined,
          expiresAt: clock.now() + 10,
        });
        clock.advance(10);
        expect(await store.consumePairingCode('telegram', 'EXP1', 'admin')).toBeUndefined();
        expect(await store.consumePairingCode('telegram', 'no!', 'admin')).toBeUndefined();
        await store.addPairingCode({
          code: 'KEEP1',
          platform: 'discord',
          userId: 'u1',
          userName: undefined,
          expiresAt: clock.now() + 10,
        });
        expect(await store.clearPairingCodes('discord')).toBe(1);
        await expect(
          store.addPairingCode({
            code: 'x',
            platform: 'telegram',
            userId: 'u1',
            userName: undefined,
            expiresAt: 1,
          }),
        ).rejects.toMatchObject({ code: 'store_failed' });
      });

      it('parks a turn with any JSON state, lists by session and expiry, and hands it to exactly one taker', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        const state = {
          messages: [{ role: 'user', content: 'x\u0000y' }],
          n: 3,
          nested: { ok: true, none: null },
        };
        await store.saveParkedTurn({ turnId: 't1', sessionKey: KEY, state: { n: 1 }, reason: 'approval' });
        await store.saveParkedTurn({
          turnId: 't1',
          sessionKey: KEY,
          state,
          reason: 'approval',
          expiresAt: clock.now() + 100,
        });
        clock.advance(1);
        await store.saveParkedTurn({
          turnId: 't2',
          sessionKey: 'agent:main:telegram:dm:7',
          state: [],
          reason: 'clarify',
        });
        const saved = await store.getParkedTurn('t1');
        expect(saved?.state).toMatchObject({ n: 3, nested: { ok: true, none: null } });
        expect((await store.listParkedTurns()).map((t) => t.turnId)).toEqual(['t1', 't2']);
        expect((await store.listParkedTurns({ sessionKey: KEY })).map((t) => t.turnId)).toEqual(['t1']);
        expect(await store.listParkedTurns({ expiredBy: clock.now() })).toEqual([]);
        expect((await store.listParkedTurns({ expiredBy: clock.now() + 100 })).map((t) => t.turnId)).toEqual([
          't1',
        ]);
        // A resume swaps the park for its recovery record: one caller wins, the record is replaced.
        const recovery = {
          turnId: 't2',
          sessionKey: 'agent:main:telegram:dm:7',
          state: { r: 1 },
          reason: 'resuming',
        };
        const swapped = await Promise.all(
          Array.from({ length: 6 }, () => store.replaceParkedTurn('t2', 'clarify', recovery)),
        );
        expect(swapped.filter(Boolean)).toHaveLength(1);
        expect(await store.getParkedTurn('t2')).toMatchObject({ reason: 'resuming', state: { r: 1 } });
        expect(await store.replaceParkedTurn('t9', 'clarify', { ...recovery, turnId: 't9' })).toBe(false);
        expect(await store.getParkedTurn('t9')).toBeUndefined();
        await expect(
          store.replaceParkedTurn('t2', 'resuming', { ...recovery, turnId: 't1' }),
        ).rejects.toMatchObject({
          code: 'store_failed',
        });
        const taken = await Promise.all(Array.from({ length: 6 }, () => store.takeParkedTurn('t1')));
        expect(taken.filter((t) => t !== undefined)).toHaveLength(1);
        expect(await store.deleteParkedTurn('t2')).toBe(true);
        expect(await store.deleteParkedTurn('t2')).toBe(false);
        await expect(
          store.saveParkedTurn({ turnId: 't3', sessionKey: KEY, state: undefined, reason: 'approval' }),
        ).rejects.toMatchObject({ code: 'store_failed' });
      });

      it('stores action prompts, finds them by request and message, and resolves each once', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        await store.saveActionPrompt(prompt({ expiresAt: clock.now() + 50 }));
        clock.advance(1);
        await store.saveActionPrompt(
          prompt({
            promptId: 'p2',
            kind: 'clarify',
            requestId: undefined,
            messageId: '1002',
            choices: ['yes', 'no'],
          }),
        );
        expect(await store.getActionPrompt('p2')).toMatchObject({
          kind: 'clarify',
          choices: ['yes', 'no'],
          requestId: undefined,
          threadId: undefined,
          resolved: undefined,
        });
        expect((await store.findActionPromptByRequest('r1'))?.promptId).toBe('p1');
        expect((await store.findActionPromptByMessage('telegram', '42', '1002'))?.promptId).toBe('p2');
        expect(await store.findActionPromptByMessage('telegram', '42', '9')).toBeUndefined();
        const resolved = await Promise.all(
          Array.from({ length: 5 }, (_, i) =>
            store.resolveActionPrompt('p1', { outcome: 'once', resolvedBy: `u${i}` }),
          ),
        );
        expect(resolved.filter(Boolean)).toHaveLength(1);
        expect((await store.getActionPrompt('p1'))?.resolved).toMatchObject({
          outcome: 'once',
          at: clock.now(),
        });
        // Saving again never reopens a resolved prompt.
        await store.saveActionPrompt(prompt({ messageId: '2001', expiresAt: clock.now() + 49 }));
        expect((await store.getActionPrompt('p1'))?.resolved?.outcome).toBe('once');
        expect((await store.listActionPrompts({ pendingOnly: true })).map((p) => p.promptId)).toEqual(['p2']);
        expect((await store.listActionPrompts({ sessionKey: KEY })).map((p) => p.promptId)).toEqual([
          'p1',
          'p2',
        ]);
        expect(
          (await store.listActionPrompts({ expiredBy: clock.now() + 100 })).map((p) => p.promptId),
        ).toEqual(['p1']);
        expect(await store.resolveActionPrompt('nope', { outcome: 'deny' })).toBe(false);
      });

      it('records delivery failures and hands each out once, oldest first', async () => {
        const store = await backend.open();
        const base = { platform: 'telegram', chatId: '42', sessionKey: KEY, error: 'boom' };
        const first = await store.recordDeliveryFailure({ ...base, turnId: 't1' });
        await store.recordDeliveryFailure({ ...base, turnId: 't2' });
        await store.recordDeliveryFailure({ ...base, chatId: '43', turnId: 't3' });
        expect(typeof first.id).toBe('number');
        const takes = await Promise.all([
          store.takeDeliveryFailures('telegram', '42'),
          store.takeDeliveryFailures('telegram', '42'),
        ]);
        const all = takes.flat();
        expect(all.map((f) => f.turnId)).toEqual(['t1', 't2']);
        expect(takes.some((t) => t.length === 0)).toBe(true);
        expect((await store.takeDeliveryFailures('telegram', '43')).map((f) => f.turnId)).toEqual(['t3']);
      });

      it('keeps one home channel per platform', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        expect(await store.getHomeChannel('telegram')).toBeUndefined();
        await store.setHomeChannel({ platform: 'telegram', chatId: '1', setBy: 'u1' });
        const second = await store.setHomeChannel({
          platform: 'telegram',
          chatId: '2',
          threadId: '9',
          setBy: 'u2',
        });
        expect(second).toEqual({
          platform: 'telegram',
          chatId: '2',
          threadId: '9',
          setBy: 'u2',
          setAt: clock.now(),
        });
        expect(await store.getHomeChannel('telegram')).toEqual(second);
      });

      it('outbox: stores once, lists pending oldest first, counts attempts, completes once', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        expect(await store.enqueueOutbox(outbox())).toBe(true);
        expect(await store.enqueueOutbox(outbox({ text: 'other' }))).toBe(false);
        clock.advance(5);
        const parked = outbox({
          id: 'parked:k1',
          kind: 'parked',
          text: '',
          prompt: { reason: 'approval', parkId: 'k1', payload: { command: 'rm -rf x', n: [1, 2] } },
        });
        expect(await store.enqueueOutbox(parked)).toBe(true);
        expect(await store.getOutbox('final:t1')).toMatchObject({
          text: 'the answer',
          eventIds: ['e1'],
          origin: { platform: 'telegram', chatType: 'dm', chatId: '42', userId: 'u1' },
          attempts: 0,
          completed: undefined,
          prompt: undefined,
        });
        expect((await store.getOutbox('parked:k1'))?.prompt).toEqual(parked.prompt);
        expect((await store.listOutbox({ platform: 'telegram' })).map((e) => e.id)).toEqual([
          'final:t1',
          'parked:k1',
        ]);
        expect(
          (await store.listOutbox({ platform: 'telegram', olderThan: clock.now() - 1 })).map((e) => e.id),
        ).toEqual(['final:t1']);
        expect(await store.markOutboxAttempt('final:t1')).toBe(1);
        expect(await store.markOutboxAttempt('final:t1')).toBe(2);
        const done = await Promise.all([
          store.completeOutbox('final:t1'),
          store.completeOutbox('final:t1', 'abandoned'),
        ]);
        expect(done.filter(Boolean)).toHaveLength(1);
        expect(await store.markOutboxAttempt('final:t1')).toBe(0);
        expect((await store.listOutbox({ platform: 'telegram' })).map((e) => e.id)).toEqual(['parked:k1']);
        await expect(
          store.enqueueOutbox(outbox({ id: 'final:t9', prompt: parked.prompt })),
        ).rejects.toMatchObject({
          code: 'store_failed',
        });
        await expect(
          store.enqueueOutbox(
            outbox({ id: 'final:t8', origin: { platform: 'discord', chatType: 'dm', chatId: '1' } }),
          ),
        ).rejects.toMatchObject({ code: 'store_failed' });
      });

      it('prunes what is past its time and keeps the rest; ping answers; close is idempotent', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        await store.markEventProcessed('telegram', 'old', 1000);
        await store.markEventProcessed('telegram', 'live', 30 * DAY);
        await store.recordDelivery({
          receiptKey: 'r-old',
          platform: 'telegram',
          chatId: '1',
          messageIds: [],
        });
        await store.addPairingCode({
          code: 'OLD1',
          platform: 'telegram',
          userId: 'u',
          userName: undefined,
          expiresAt: clock.now() + 1,
        });
        await store.saveActionPrompt(prompt());
        await store.resolveActionPrompt('p1', { outcome: 'deny' });
        await store.recordDeliveryFailure({
          platform: 'telegram',
          chatId: '1',
          sessionKey: KEY,
          turnId: 't',
          error: 'e',
        });
        await store.enqueueOutbox(outbox());
        await store.recordTurnFailure({
          turnId: 't',
          sessionKey: KEY,
          platform: 'telegram',
          code: 'internal',
          message: 'm',
        });
        clock.advance(8 * DAY);
        await store.enqueueOutbox(outbox({ id: 'final:t2', turnId: 't2' }));
        expect(await store.prune()).toEqual({
          events: 1,
          deliveries: 1,
          pairingCodes: 1,
          actionPrompts: 1,
          deliveryFailures: 1,
          outbox: 1,
          turnFailures: 1,
        });
        expect(await store.getOutbox('final:t2')).toBeDefined();
        await store.ping();
        await store.close();
        await store.close();
        await expect(store.getSession(KEY)).rejects.toMatchObject({ code: 'store_failed' });
      });
    },
  );
}
