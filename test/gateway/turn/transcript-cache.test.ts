import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { NewMessage } from '../../../src/gateway/store/gateway-store.js';
import { TranscriptCache } from '../../../src/gateway/turn/transcript-cache.js';
import { storeFixture } from '../store/store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

const user = (text: string): NewMessage => ({ role: 'user', content: text });
const toolStep = (n: number): NewMessage[] => [
  {
    role: 'assistant',
    content: null,
    toolCalls: [{ id: `call_${n}`, type: 'function', function: { name: 'todo', arguments: '{}' } }],
  },
  { role: 'tool', content: `result ${n}`, toolCallId: `call_${n}`, name: 'todo' },
];

async function session(store: ReturnType<typeof fixture.fresh>, key: string) {
  return (await store.getOrCreateSession(key)).sessionId;
}

describe('TranscriptCache', () => {
  it('extends the array it handed out with what was appended since, by any connection', async () => {
    const path = join(fixture.dir(), 'state.db');
    const store = fixture.open(path);
    const other = fixture.open(path);
    const id = await session(store, 'agent:main:telegram:dm:1');
    await store.appendMessages(id, [user('one'), { role: 'assistant', content: 'two' }]);
    const cache = new TranscriptCache();

    const first = await cache.load(store, id, 100);
    expect(first.transcript.map((m) => m.content)).toEqual(['one', 'two']);
    // A turn appends through the store and to the array it was given (persist).
    first.transcript.push(...(await store.appendMessages(id, [user('three')])));
    // Another process appends too.
    await other.appendMessages(id, [{ role: 'assistant', content: 'four' }]);

    const second = await cache.load(store, id, 100);
    expect(second.transcript).toBe(first.transcript);
    expect(second.transcript.map((m) => [m.seq, m.content])).toEqual([
      [1, 'one'],
      [2, 'two'],
      [3, 'three'],
      [4, 'four'],
    ]);
    expect(second.earlierOmitted).toBe(0);
  });

  it('keeps the same window as a fresh load: last N, never starting with a tool result', async () => {
    const store = fixture.fresh();
    const id = await session(store, 'agent:main:telegram:dm:2');
    const cache = new TranscriptCache();
    await store.appendMessages(id, [user('a'), ...toolStep(1)]);
    expect((await cache.load(store, id, 4)).transcript).toHaveLength(3);
    for (let n = 2; n <= 6; n += 1) {
      await store.appendMessages(id, n % 2 === 0 ? toolStep(n) : [user(`u${n}`)]);
      const cached = await cache.load(store, id, 4);
      const fresh = await new TranscriptCache().load(store, id, 4);
      expect(cached.transcript.map((m) => m.seq)).toEqual(fresh.transcript.map((m) => m.seq));
      expect(cached.earlierOmitted).toBe(fresh.earlierOmitted);
      expect(cached.transcript[0]?.role).not.toBe('tool');
    }
  });

  it('reads everything again when the history behind the cached copy was rewritten', async () => {
    const store = fixture.fresh();
    const id = await session(store, 'agent:main:telegram:dm:3');
    await store.appendMessages(id, [user('old 1'), user('old 2'), user('old 3')]);
    const cache = new TranscriptCache();
    await cache.load(store, id, 100);
    store.db.prepare('DELETE FROM messages WHERE session_id = ?').run(id);
    await store.appendMessages(id, [user('new 1'), user('new 2'), user('new 3'), user('new 4')]);
    const reloaded = await cache.load(store, id, 100);
    expect(reloaded.transcript.map((m) => m.content)).toEqual(['new 1', 'new 2', 'new 3', 'new 4']);
  });

  it('reads everything again when an earlier message was deleted behind its back', async () => {
    const store = fixture.fresh();
    const id = await session(store, 'agent:main:telegram:dm:4');
    await store.appendMessages(id, [user('m1'), user('m2'), user('m3')]);
    const cache = new TranscriptCache();
    await cache.load(store, id, 100);
    store.db.prepare('DELETE FROM messages WHERE session_id = ? AND seq = 2').run(id);
    await store.appendMessages(id, [user('m4')]);
    const reloaded = await cache.load(store, id, 100);
    expect(reloaded.transcript.map((m) => m.content)).toEqual(['m1', 'm3', 'm4']);
  });

  it('keeps at most maxSessions sessions and never one larger than maxChars', async () => {
    const store = fixture.fresh();
    const cache = new TranscriptCache({ maxSessions: 2, maxChars: 1_000 });
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const id = await session(store, `agent:main:telegram:dm:s${n}`);
      await store.appendMessages(id, [user(`hello ${n}`)]);
      ids.push(id);
      await cache.load(store, id, 100);
    }
    expect(cache.size).toBe(2);
    const big = await session(store, 'agent:main:telegram:dm:big');
    await store.appendMessages(big, [user('x'.repeat(5_000))]);
    const loaded = await cache.load(store, big, 100);
    expect(loaded.transcript).toHaveLength(1);
    expect(cache.size).toBe(2);
    // Not kept: the next load reads it again (a new array).
    expect((await cache.load(store, big, 100)).transcript).not.toBe(loaded.transcript);
  });
});
