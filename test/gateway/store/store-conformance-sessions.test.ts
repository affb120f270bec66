import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayStore, NewMessage } from '../../../src/gateway/store/gateway-store.js';
import { storeBackends } from './store-backends.js';
import { manualClock } from './store-fixture.js';

/*
 * Store conformance, part 1: sessions and transcripts (session_search included). The same cases
 * run against every backend (SQLite, PostgreSQL); a backend passes only if it behaves the same.
 */

const KEY = 'agent:main:telegram:dm:42';
const TURN: NewMessage[] = [
  { role: 'system', content: 'You are Hermes.' },
  { role: 'user', content: 'list the build folder', name: 'ann' },
  {
    role: 'assistant',
    content: null,
    toolCalls: [
      { id: 'call_1', type: 'function', function: { name: 'terminal', arguments: '{"command":"ls"}' } },
    ],
    promptTokens: 120,
    completionTokens: 14,
  },
  { role: 'tool', content: 'app.js\nindex.html', toolCallId: 'call_1', name: 'terminal' },
  { role: 'assistant', content: 'The build folder holds app.js and index.html.', promptTokens: 150 },
];

async function sessionWith(store: GatewayStore, key: string, messages: NewMessage[]): Promise<string> {
  const { sessionId } = await store.getOrCreateSession(key);
  await store.appendMessages(sessionId, messages);
  return sessionId;
}

for (const backend of storeBackends()) {
  describe.skipIf(backend.skip !== undefined)(
    `gateway store conformance (${backend.name}${backend.skip ? `: skipped, ${backend.skip}` : ''}): sessions and transcripts`,
    () => {
      afterEach(() => backend.cleanup());

      it('creates a session once, rotates it and remembers every id it had', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        expect(await store.getSession(KEY)).toBeUndefined();
        const created = await store.getOrCreateSession(KEY);
        expect(created).toEqual({
          key: KEY,
          sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          title: undefined,
          modelOverride: undefined,
          toolsetOverrides: undefined,
          yolo: false,
          createdAt: clock.now(),
          sessionStartedAt: clock.now(),
          updatedAt: clock.now(),
        });
        clock.advance(1000);
        expect(await store.getOrCreateSession(KEY)).toEqual(created);
        await store.updateSession(KEY, { title: 'Plans', modelOverride: 'm1', yolo: true });
        clock.advance(1000);
        const rotated = await store.rotateSession(KEY);
        expect(rotated.previousSessionId).toBe(created.sessionId);
        expect(rotated.session).toMatchObject({
          title: undefined,
          modelOverride: 'm1',
          yolo: false,
          createdAt: created.createdAt,
          sessionStartedAt: clock.now(),
        });
        expect(await store.sessionKeyOf(created.sessionId)).toBe(KEY);
        expect(await store.sessionKeyOf(rotated.session.sessionId)).toBe(KEY);
        const fresh = await store.rotateSession('agent:main:telegram:dm:7');
        expect(fresh.previousSessionId).toBeUndefined();
      });

      it('gives concurrent first calls one session', async () => {
        const store = await backend.open();
        const all = await Promise.all(Array.from({ length: 10 }, () => store.getOrCreateSession(KEY)));
        expect(new Set(all.map((s) => s.sessionId)).size).toBe(1);
      });

      it('patches: null clears, undefined leaves alone, names are cleaned, a missing key is created', async () => {
        const store = await backend.open();
        const created = await store.updateSession(KEY, {
          title: '  Deploy\nplans  ',
          modelOverride: ' hermes-4 ',
          toolsetOverrides: ['web', 'file', 'web'],
          yolo: true,
        });
        expect(created).toMatchObject({
          title: 'Deploy plans',
          modelOverride: 'hermes-4',
          toolsetOverrides: ['web', 'file'],
          yolo: true,
        });
        const patched = await store.updateSession(KEY, { modelOverride: null, toolsetOverrides: [] });
        expect(patched).toMatchObject({
          title: 'Deploy plans',
          modelOverride: undefined,
          toolsetOverrides: [],
        });
        expect(await store.getSession(KEY)).toEqual(patched);
        await expect(store.updateSession(KEY, { toolsetOverrides: [''] })).rejects.toMatchObject({
          code: 'store_failed',
        });
        await expect(store.getSession('not a key')).rejects.toMatchObject({ code: 'session_key_invalid' });
      });

      it('lists sessions newest first, by prefix on : boundaries, with a limit', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        for (const key of [
          'agent:main:telegram:dm:1',
          'agent:main:telegram:dm:10',
          'agent:main:discord:dm:1',
        ]) {
          await store.getOrCreateSession(key);
          clock.advance(10);
        }
        expect((await store.listSessions()).map((s) => s.key)).toEqual([
          'agent:main:discord:dm:1',
          'agent:main:telegram:dm:10',
          'agent:main:telegram:dm:1',
        ]);
        expect((await store.listSessions({ prefix: 'agent:main:telegram:dm:1' })).map((s) => s.key)).toEqual([
          'agent:main:telegram:dm:1',
        ]);
        expect((await store.listSessions({ prefix: 'agent:main:telegram' })).length).toBe(2);
        expect((await store.listSessions({ limit: 1 })).length).toBe(1);
      });

      it('appends with per-session seq numbers, reads back head, tail and after, and marks the session active', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        const { sessionId } = await store.getOrCreateSession(KEY);
        clock.advance(500);
        const stored = await store.appendMessages(sessionId, TURN);
        expect(stored.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5]);
        expect(stored[2]).toEqual({
          sessionId,
          seq: 3,
          role: 'assistant',
          content: null,
          toolCalls: TURN[2]?.toolCalls,
          toolCallId: undefined,
          name: undefined,
          promptTokens: 120,
          completionTokens: 14,
          createdAt: clock.now(),
        });
        expect(await store.listMessages(sessionId)).toEqual(stored);
        expect(await store.countMessages(sessionId)).toBe(5);
        expect((await store.listMessages(sessionId, { afterSeq: 3 })).map((m) => m.seq)).toEqual([4, 5]);
        expect((await store.listMessages(sessionId, { limit: 2 })).map((m) => m.seq)).toEqual([1, 2]);
        expect((await store.listMessages(sessionId, { limit: 2, tail: true })).map((m) => m.seq)).toEqual([
          4, 5,
        ]);
        expect((await store.getSession(KEY))?.updatedAt).toBe(clock.now());
        expect(await store.appendMessages(sessionId, [])).toEqual([]);
      });

      it('keeps seq numbers gapless under concurrent appends and rejects unknown session ids and bad messages', async () => {
        const store = await backend.open();
        const { sessionId } = await store.getOrCreateSession(KEY);
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.appendMessages(sessionId, [{ role: 'user', content: `m${i}` }]),
          ),
        );
        expect((await store.listMessages(sessionId)).map((m) => m.seq)).toEqual(
          Array.from({ length: 20 }, (_, i) => i + 1),
        );
        await expect(
          store.appendMessages('0123456789abcdef', [{ role: 'user', content: 'x' }]),
        ).rejects.toMatchObject({ code: 'store_failed' });
        await expect(
          store.appendMessages(sessionId, [{ role: 'robot' as 'user', content: 'x' }]),
        ).rejects.toMatchObject({ code: 'store_failed' });
        expect(await store.countMessages(sessionId)).toBe(20);
      });

      it('session_search: all terms must occur, word prefixes match, scoped by prefix, exclusion and roles', async () => {
        const store = await backend.open();
        const a = await sessionWith(store, 'agent:main:telegram:dm:1', [
          { role: 'user', content: 'How do we deploy the billing service?' },
          { role: 'assistant', content: 'Run the deployment pipeline for billing.' },
          { role: 'tool', content: 'deploy billing tool output' },
        ]);
        const b = await sessionWith(store, 'agent:main:discord:dm:2', [
          { role: 'user', content: 'Deploy the website please' },
        ]);
        const hits = await store.searchMessages('deploy billing');
        expect(hits.map((h) => [h.sessionId, h.seq]).sort()).toEqual([
          [a, 1],
          [a, 2],
        ]);
        expect(hits.every((h) => h.snippet.includes('**'))).toBe(true);
        expect(hits[0]?.sessionKey).toBe('agent:main:telegram:dm:1');
        expect((await store.searchMessages('DEPLOY')).length).toBe(3);
        expect(
          (await store.searchMessages('deploy', { sessionKeyPrefix: 'agent:main:discord' })).map(
            (h) => h.sessionId,
          ),
        ).toEqual([b]);
        expect(
          (await store.searchMessages('deploy', { excludeSessionId: a })).map((h) => h.sessionId),
        ).toEqual([b]);
        expect((await store.searchMessages('deploy', { roles: ['assistant'] })).map((h) => h.seq)).toEqual([
          2,
        ]);
        expect(await store.searchMessages('deploy', { roles: ['tool'] })).toEqual([]);
        expect(await store.searchMessages('   ')).toEqual([]);
        expect((await store.searchMessages('deploy', { limit: 1 })).length).toBe(1);
      });

      it('session_search: query syntax is matched literally, short terms as substrings, newest first', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        const id = await sessionWith(store, KEY, [
          { role: 'user', content: 'the "quoted" NEAR(thing) AND stuff: 50% off_now' },
          { role: 'user', content: '我们 明天 见' },
        ]);
        clock.advance(1);
        await store.appendMessages(id, [{ role: 'assistant', content: '明天 is fine' }]);
        expect((await store.searchMessages('"quoted" NEAR(thing)')).map((h) => h.seq)).toEqual([1]);
        expect((await store.searchMessages('AND stuff:')).map((h) => h.seq)).toEqual([1]);
        expect((await store.searchMessages('50%')).map((h) => h.seq)).toEqual([1]);
        expect(await store.searchMessages('9%')).toEqual([]);
        expect((await store.searchMessages('明天')).map((h) => h.seq)).toEqual([3, 2]);
        expect(await store.searchMessages('missingword')).toEqual([]);
      });
    },
  );
}
