import { afterEach, describe, expect, it } from 'vitest';
import type { NewMessage } from '../../../src/gateway/store/gateway-store.js';
import type { SqliteGatewayStore } from '../../../src/gateway/store/sqlite-gateway-store.js';
import { createMessageIndexer } from '../../../src/gateway/store/sqlite-message-indexer.js';
import { silentLogger } from '../../helpers/test-config.js';
import { manualClock, storeFixture } from './store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

const KEY = 'agent:main:telegram:dm:42';

const TURN: NewMessage[] = [
  { role: 'system', content: 'You are Hermes.' },
  { role: 'user', content: 'list the build folder', name: 'ann' },
  {
    role: 'assistant',
    content: null,
    toolCalls: [
      { id: 'call_1', type: 'function', function: { name: 'terminal', arguments: '{"command":"ls build"}' } },
    ],
    promptTokens: 120,
    completionTokens: 14,
  },
  { role: 'tool', content: 'app.js\nindex.html', toolCallId: 'call_1', name: 'terminal' },
  {
    role: 'assistant',
    content: 'The build folder holds app.js and index.html.',
    promptTokens: 150,
    completionTokens: 12,
  },
];

async function sessionWith(store: SqliteGatewayStore, key: string, messages: NewMessage[]): Promise<string> {
  const { sessionId } = await store.getOrCreateSession(key);
  await store.appendMessages(sessionId, messages);
  return sessionId;
}

describe('sqlite gateway store: transcript', () => {
  it('appends a batch with per-session seq numbers and reads it back in order', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    const { sessionId } = await store.getOrCreateSession(KEY);
    const stored = await store.appendMessages(sessionId, TURN);
    expect(stored.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(stored[2]).toEqual({
      sessionId,
      seq: 3,
      role: 'assistant',
      content: null,
      toolCalls: TURN[2]!.toolCalls,
      toolCallId: undefined,
      name: undefined,
      promptTokens: 120,
      completionTokens: 14,
      createdAt: clock.now(),
    });
    expect(await store.listMessages(sessionId)).toEqual(stored);
    expect(await store.countMessages(sessionId)).toBe(5);

    const more = await store.appendMessages(sessionId, [{ role: 'user', content: 'thanks', createdAt: 5 }]);
    expect(more).toMatchObject([{ seq: 6, createdAt: 5 }]);
    expect(await store.appendMessages(sessionId, [])).toEqual([]);
  });

  it('pages with afterSeq, limit and tail', async () => {
    const store = fixture.fresh();
    const sessionId = await sessionWith(store, KEY, TURN);
    const seqs = async (options: Parameters<SqliteGatewayStore['listMessages']>[1]) =>
      (await store.listMessages(sessionId, options)).map((m) => m.seq);
    expect(await seqs({ afterSeq: 2 })).toEqual([3, 4, 5]);
    expect(await seqs({ limit: 2 })).toEqual([1, 2]);
    expect(await seqs({ afterSeq: 1, limit: 2 })).toEqual([2, 3]);
    expect(await seqs({ limit: 2, tail: true })).toEqual([4, 5]);
    expect(await seqs({ limit: 0 })).toEqual([]);
    expect(await seqs({ afterSeq: 5 })).toEqual([]);
  });

  it('writes all or nothing: one bad message rejects the whole batch', async () => {
    const store = fixture.fresh();
    const sessionId = await sessionWith(store, KEY, TURN.slice(0, 1));
    const bad = [
      { role: 'user', content: 'fine' },
      { role: 'robot', content: 'not a role' },
    ] as unknown as NewMessage[];
    await expect(store.appendMessages(sessionId, bad)).rejects.toMatchObject({ code: 'store_failed' });
    expect(await store.countMessages(sessionId)).toBe(1);
  });

  it('refuses messages for an unknown or malformed session id', async () => {
    const store = fixture.fresh();
    await expect(store.appendMessages('AAAAAAAAAAAAAAAAAAAAAA', TURN)).rejects.toMatchObject({
      code: 'store_failed',
      message: expect.stringContaining('unknown session id AAAAAAAAAAAAAAAAAAAAAA'),
    });
    await expect(store.appendMessages('../escape', TURN)).rejects.toMatchObject({
      code: 'session_key_invalid',
    });
    await expect(store.listMessages('..')).rejects.toMatchObject({ code: 'session_key_invalid' });
  });

  it('keeps seq numbers gap-free across concurrent appends', async () => {
    const store = fixture.fresh();
    const { sessionId } = await store.getOrCreateSession(KEY);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.appendMessages(sessionId, [{ role: 'user', content: `m${i}` }]),
      ),
    );
    const all = await store.listMessages(sessionId);
    expect(all.map((m) => m.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});

describe('sqlite gateway store: session search', () => {
  async function seeded() {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    const mine = await sessionWith(store, KEY, TURN);
    clock.advance(1000);
    const rotated = await store.rotateSession(KEY);
    await store.appendMessages(rotated.session.sessionId, [
      { role: 'user', content: 'Deploy the café service to staging tonight' },
      { role: 'assistant', content: '我们明天部署新版本，好的。' },
    ]);
    const other = await sessionWith(store, 'agent:main:telegram:dm:420', [
      { role: 'user', content: 'deploy my other thing (NEAR the "quoted" * - stuff)' },
    ]);
    return { store, mine, current: rotated.session.sessionId, other };
  }

  it('finds words across past sessions with snippets', async () => {
    const { store, mine } = await seeded();
    const hits = await store.searchMessages('build folder');
    expect(hits.map((h) => [h.sessionId, h.seq])).toEqual(
      expect.arrayContaining([
        [mine, 2],
        [mine, 5],
      ]),
    );
    expect(hits).toHaveLength(2);
    const user = hits.find((h) => h.role === 'user')!;
    expect(user).toMatchObject({ sessionKey: KEY, sessionId: mine, seq: 2, role: 'user' });
    expect(user.snippet).toBe('list the **build** **folder**');
  });

  it('does not index system prompts or tool output', async () => {
    const { store } = await seeded();
    expect(await store.searchMessages('Hermes')).toEqual([]);
    expect(await store.searchMessages('index.html')).toHaveLength(1); // only the assistant's answer
  });

  it('matches substrings, diacritics-insensitive, CJK and short terms', async () => {
    const { store, current } = await seeded();
    expect((await store.searchMessages('ploy staging')).map((h) => h.sessionId)).toEqual([current]);
    expect((await store.searchMessages('CAFE')).map((h) => h.sessionId)).toEqual([current]);
    const cjk = await store.searchMessages('部署');
    expect(cjk.map((h) => h.sessionId)).toEqual([current]);
    expect(cjk[0]!.snippet).toContain('**部署**');
    expect(await store.searchMessages('部署新版本')).toHaveLength(1);
  });

  it('scopes by key prefix on component boundaries and can leave out a session', async () => {
    const { store, current, other, mine } = await seeded();
    const everywhere = await store.searchMessages('deploy');
    expect(new Set(everywhere.map((h) => h.sessionId))).toEqual(new Set([current, other]));
    const scoped = await store.searchMessages('deploy', { sessionKeyPrefix: KEY });
    expect(scoped.map((h) => h.sessionId)).toEqual([current]);
    expect(
      await store.searchMessages('deploy', { sessionKeyPrefix: KEY, excludeSessionId: current }),
    ).toEqual([]);
    expect(
      (await store.searchMessages('build', { roles: ['user'] })).map((h) => [h.sessionId, h.seq]),
    ).toEqual([[mine, 2]]);
    expect(await store.searchMessages('deploy', { limit: 1 })).toHaveLength(1);
  });

  it.each([
    '"',
    '""',
    '*',
    'NEAR(',
    'NEAR(deploy stuff, 2)',
    '-',
    '- deploy',
    'deploy AND',
    'OR',
    'NOT deploy',
    '(',
    ')',
    '^deploy',
    'content:deploy',
    '{content}: deploy',
    "'; DROP TABLE messages; --",
    '\\',
    '%',
    '_',
    '\u0000',
    '',
    '   ',
    '\n\t',
    'x'.repeat(5000),
    Array.from({ length: 100 }, (_, i) => `t${i}`).join(' '),
  ])('never throws on the hostile query %j', async (query) => {
    const { store } = await seeded();
    const hits = await store.searchMessages(query);
    expect(Array.isArray(hits)).toBe(true);
  });

  it('keeps the index consistent with its content view, also after a rebuild', async () => {
    const { store } = await seeded();
    // rank = 1 makes integrity-check compare the index with the content view row by row.
    const fts = (command: string) =>
      store.db.prepare('INSERT INTO messages_fts (messages_fts, rank) VALUES (?, 1)').run(command);
    const before = await store.searchMessages('index.html'); // brings the index up to date
    expect(() => fts('integrity-check')).not.toThrow();
    createMessageIndexer(store.db, silentLogger).rebuild();
    expect(() => fts('integrity-check')).not.toThrow();
    expect(await store.searchMessages('index.html')).toEqual(before);
    expect(await store.searchMessages('Hermes')).toEqual([]);
  });

  it('matches hostile characters literally', async () => {
    const { store, other } = await seeded();
    expect((await store.searchMessages('"quoted"')).map((h) => h.sessionId)).toEqual([other]);
    expect((await store.searchMessages('NEAR(')).map((h) => h.sessionId)).toEqual([]);
    expect((await store.searchMessages('(NEAR')).map((h) => h.sessionId)).toEqual([other]);
    expect((await store.searchMessages('*')).map((h) => h.sessionId)).toEqual([other]);
    expect(await store.searchMessages('%')).toEqual([]);
    expect(await store.searchMessages('')).toEqual([]);
    expect(await store.countMessages(other)).toBe(1);
  });
});
