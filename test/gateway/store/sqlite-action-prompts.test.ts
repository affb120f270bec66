import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActionPromptInput } from '../../../src/gateway/store/gateway-store.js';
import { manualClock, storeFixture } from './store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

const KEY = 'agent:main:telegram:dm:42';

function prompt(overrides: Partial<ActionPromptInput> = {}): ActionPromptInput {
  return {
    promptId: 'p1',
    kind: 'approval',
    platform: 'telegram',
    chatId: '42',
    messageId: '1001',
    sessionKey: KEY,
    turnId: 't1',
    parkId: 'park-1',
    requestId: 'r1',
    userId: 'u42',
    ...overrides,
  };
}

describe('sqlite gateway store: action prompts', () => {
  it('saves and reads a prompt, open until resolved', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    await store.saveActionPrompt(prompt({ threadId: '7', expiresAt: clock.now() + 300_000 }));
    expect(await store.getActionPrompt('p1')).toEqual({
      promptId: 'p1',
      kind: 'approval',
      platform: 'telegram',
      chatId: '42',
      threadId: '7',
      messageId: '1001',
      sessionKey: KEY,
      turnId: 't1',
      parkId: 'park-1',
      requestId: 'r1',
      userId: 'u42',
      choices: [],
      createdAt: clock.now(),
      expiresAt: clock.now() + 300_000,
      resolved: undefined,
    });
    expect(await store.getActionPrompt('nope')).toBeUndefined();

    await store.saveActionPrompt(
      prompt({
        promptId: 'p2',
        kind: 'clarify',
        requestId: undefined,
        userId: undefined,
        messageId: '1002',
        choices: ['Blue', 'Green ✓', ''],
      }),
    );
    expect(await store.getActionPrompt('p2')).toMatchObject({
      kind: 'clarify',
      choices: ['Blue', 'Green ✓', ''],
      requestId: undefined,
      userId: undefined,
      threadId: undefined,
      expiresAt: undefined,
    });
  });

  it('finds prompts by request id and by platform message (newest first)', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    await store.saveActionPrompt(prompt());
    clock.advance(10);
    await store.saveActionPrompt(prompt({ promptId: 'p1b', messageId: '1005' })); // shown again
    await store.saveActionPrompt(
      prompt({ promptId: 'q1', kind: 'clarify', requestId: undefined, messageId: '2000', chatId: '43' }),
    );
    expect((await store.findActionPromptByRequest('r1'))?.promptId).toBe('p1b');
    expect(await store.findActionPromptByRequest('r-unknown')).toBeUndefined();
    expect((await store.findActionPromptByMessage('telegram', '43', '2000'))?.promptId).toBe('q1');
    expect((await store.findActionPromptByMessage('telegram', '42', '1001'))?.promptId).toBe('p1');
    expect(await store.findActionPromptByMessage('discord', '43', '2000')).toBeUndefined();
  });

  it('lists by session, pending only, and expired by a time, oldest first', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    const t0 = clock.now();
    await store.saveActionPrompt(prompt({ promptId: 'a', expiresAt: t0 + 100 }));
    clock.advance(1);
    await store.saveActionPrompt(prompt({ promptId: 'b', expiresAt: t0 + 500 }));
    clock.advance(1);
    await store.saveActionPrompt(prompt({ promptId: 'c', sessionKey: 'agent:main:discord:dm:9' }));
    await store.resolveActionPrompt('b', { outcome: 'once', resolvedBy: 'u42' });

    const ids = async (options?: Parameters<typeof store.listActionPrompts>[0]) =>
      (await store.listActionPrompts(options)).map((p) => p.promptId);
    expect(await ids()).toEqual(['a', 'b', 'c']);
    expect(await ids({ sessionKey: KEY })).toEqual(['a', 'b']);
    expect(await ids({ pendingOnly: true })).toEqual(['a', 'c']);
    expect(await ids({ expiredBy: t0 + 100 })).toEqual(['a']);
    expect(await ids({ expiredBy: t0 + 1000 })).toEqual(['a', 'b']);
    expect(await ids({ expiredBy: t0 + 1000, pendingOnly: true, sessionKey: KEY })).toEqual(['a']);
  });

  it('resolves a prompt once: the first caller wins, later ones change nothing', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    await store.saveActionPrompt(prompt());
    clock.advance(5);
    const results = await Promise.all([
      store.resolveActionPrompt('p1', { outcome: 'deny', resolvedBy: 'u42' }),
      store.resolveActionPrompt('p1', { outcome: 'once', resolvedBy: 'admin' }),
      store.resolveActionPrompt('p1', { outcome: 'timeout' }),
    ]);
    expect(results).toEqual([true, false, false]);
    expect((await store.getActionPrompt('p1'))?.resolved).toEqual({
      outcome: 'deny',
      resolvedBy: 'u42',
      at: clock.now(),
    });
    expect(await store.resolveActionPrompt('unknown', { outcome: 'deny' })).toBe(false);
    await store.resolveActionPrompt('p1', { outcome: 'once', at: 1 });
    expect((await store.getActionPrompt('p1'))?.resolved?.outcome).toBe('deny');
  });

  it('keeps a clarify answer with its resolution', async () => {
    const store = fixture.fresh();
    await store.saveActionPrompt(prompt());
    await store.resolveActionPrompt('p1', { outcome: 'answered', resolvedBy: 'Alice', answer: 'dev' });
    await store.resolveActionPrompt('p1', { outcome: 'answered', resolvedBy: 'Bob', answer: 'main' });
    expect((await store.getActionPrompt('p1'))?.resolved).toMatchObject({
      outcome: 'answered',
      resolvedBy: 'Alice',
      answer: 'dev',
    });
  });

  it('lets only one of two processes resolve the same prompt', async () => {
    const path = join(fixture.dir(), 'state.db');
    const a = fixture.open(path);
    const b = fixture.open(path);
    await a.saveActionPrompt(prompt());
    const [fromA, fromB] = await Promise.all([
      a.resolveActionPrompt('p1', { outcome: 'once', resolvedBy: 'a' }),
      b.resolveActionPrompt('p1', { outcome: 'deny', resolvedBy: 'b' }),
    ]);
    expect([fromA, fromB].filter(Boolean)).toHaveLength(1);
    expect((await b.getActionPrompt('p1'))?.resolved?.resolvedBy).toBe(fromA ? 'a' : 'b');
  });

  it('updates where a prompt was shown on a second save, but never reopens it', async () => {
    const store = fixture.fresh();
    await store.saveActionPrompt(prompt());
    await store.saveActionPrompt(prompt({ messageId: '1009', parkId: 'park-2' }));
    expect(await store.getActionPrompt('p1')).toMatchObject({ messageId: '1009', parkId: 'park-2' });
    await store.resolveActionPrompt('p1', { outcome: 'session' });
    await store.saveActionPrompt(prompt({ messageId: '1010' }));
    expect(await store.getActionPrompt('p1')).toMatchObject({
      messageId: '1010',
      resolved: { outcome: 'session' },
    });
  });

  it('survives a restart of the store', async () => {
    const path = join(fixture.dir(), 'state.db');
    const first = fixture.open(path);
    await first.saveActionPrompt(prompt());
    await first.close();
    const second = fixture.open(path);
    expect((await second.getActionPrompt('p1'))?.parkId).toBe('park-1');
    expect(await second.resolveActionPrompt('p1', { outcome: 'always', resolvedBy: 'u42' })).toBe(true);
  });

  it('refuses malformed input with store_failed', async () => {
    const store = fixture.fresh();
    await expect(store.saveActionPrompt(prompt({ promptId: '' }))).rejects.toMatchObject({
      code: 'store_failed',
    });
    await expect(
      store.saveActionPrompt({ ...prompt(), kind: 'vote' as unknown as 'approval' }),
    ).rejects.toMatchObject({ code: 'store_failed' });
    await expect(store.saveActionPrompt(prompt({ sessionKey: '../etc' }))).rejects.toBeTruthy();
    await expect(store.resolveActionPrompt('p1', { outcome: '' })).rejects.toMatchObject({
      code: 'store_failed',
    });
    await expect(
      store.saveActionPrompt(prompt({ choices: Array.from({ length: 17 }, (_, i) => `c${i}`) })),
    ).rejects.toMatchObject({ code: 'store_failed' });
  });

  it('prunes resolved prompts older than the retention, never open ones', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    await store.saveActionPrompt(prompt({ promptId: 'old' }));
    await store.saveActionPrompt(prompt({ promptId: 'open' }));
    await store.resolveActionPrompt('old', { outcome: 'deny' });
    clock.advance(8 * 24 * 60 * 60 * 1000);
    expect((await store.prune()).actionPrompts).toBe(1);
    expect(await store.getActionPrompt('old')).toBeUndefined();
    expect(await store.getActionPrompt('open')).toBeDefined();
  });
});
