import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock, storeFixture } from './store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

const KEY = 'agent:main:telegram:dm:42';

describe('sqlite gateway store: sessions', () => {
  it('creates a session on first use and returns the same one afterwards', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
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
    expect(await store.sessionKeyOf(created.sessionId)).toBe(KEY);
  });

  it('reads an existing session without the write lock (another process may hold it)', async () => {
    const path = join(fixture.dir(), 'state.db');
    const store = fixture.open(path, manualClock(), { busyTimeoutMs: 20, searchIndexIntervalMs: 0 });
    const created = await store.getOrCreateSession(KEY);
    const other = new BetterSqlite3(path);
    try {
      other.exec('BEGIN IMMEDIATE');
      expect(await store.getOrCreateSession(KEY)).toEqual(created);
      await expect(store.getOrCreateSession(`${KEY}0`)).rejects.toMatchObject({ code: 'store_failed' });
      other.exec('ROLLBACK');
      expect((await store.getOrCreateSession(`${KEY}0`)).key).toBe(`${KEY}0`);
    } finally {
      other.close();
    }
  });

  it('gives concurrent first calls one session', async () => {
    const store = fixture.fresh();
    const all = await Promise.all(Array.from({ length: 10 }, () => store.getOrCreateSession(KEY)));
    expect(new Set(all.map((s) => s.sessionId)).size).toBe(1);
  });

  it('patches fields, null clears, undefined leaves alone; creates a missing key', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    const created = await store.updateSession(KEY, {
      title: '  Deploy\nplans  ',
      modelOverride: 'hermes-4-70b',
      toolsetOverrides: ['web', 'file', 'web'],
      yolo: true,
    });
    expect(created).toMatchObject({
      title: 'Deploy plans',
      modelOverride: 'hermes-4-70b',
      toolsetOverrides: ['web', 'file'],
      yolo: true,
    });
    clock.advance(5);
    const patched = await store.updateSession(KEY, { modelOverride: null, toolsetOverrides: [] });
    expect(patched).toMatchObject({
      sessionId: created.sessionId,
      title: 'Deploy plans',
      modelOverride: undefined,
      toolsetOverrides: [],
      yolo: true,
      updatedAt: clock.now(),
    });
    const cleared = await store.updateSession(KEY, { title: null, toolsetOverrides: null, yolo: false });
    expect(cleared).toMatchObject({ title: undefined, toolsetOverrides: undefined, yolo: false });
    expect(await store.getSession(KEY)).toEqual(cleared);
  });

  it('/new rotates the id, keeps model and toolset overrides, clears title and yolo', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    const before = await store.updateSession(KEY, {
      title: 'old chat',
      modelOverride: 'm1',
      toolsetOverrides: ['web'],
      yolo: true,
    });
    await store.appendMessages(before.sessionId, [{ role: 'user', content: 'hello' }]);
    clock.advance(60_000);
    const { session, previousSessionId } = await store.rotateSession(KEY);
    expect(previousSessionId).toBe(before.sessionId);
    expect(session.sessionId).not.toBe(before.sessionId);
    expect(session).toMatchObject({
      key: KEY,
      title: undefined,
      modelOverride: 'm1',
      toolsetOverrides: ['web'],
      yolo: false,
      createdAt: before.createdAt,
      sessionStartedAt: clock.now(),
    });
    // The old transcript stays, under the old id, still mapped to the key.
    expect(await store.countMessages(before.sessionId)).toBe(1);
    expect(await store.countMessages(session.sessionId)).toBe(0);
    expect(await store.sessionKeyOf(before.sessionId)).toBe(KEY);
  });

  it('rotating a new key creates it', async () => {
    const store = fixture.fresh();
    const { session, previousSessionId } = await store.rotateSession(KEY);
    expect(previousSessionId).toBeUndefined();
    expect(await store.getSession(KEY)).toEqual(session);
  });

  it('lists sessions by activity with a component-aligned prefix and a limit', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    const keys = [
      'agent:main:telegram:dm:12',
      'agent:main:telegram:dm:123',
      'agent:main:telegram:group:-100:12',
      'agent:main:discord:dm:12',
    ];
    for (const key of keys) {
      await store.getOrCreateSession(key);
      clock.advance(10);
    }
    const first = await store.getOrCreateSession(keys[0]!);
    await store.appendMessages(first.sessionId, [{ role: 'user', content: 'bump' }]);

    expect((await store.listSessions()).map((s) => s.key)).toEqual([keys[0], keys[3], keys[2], keys[1]]);
    expect((await store.listSessions({ prefix: 'agent:main:telegram:dm:12' })).map((s) => s.key)).toEqual([
      keys[0],
    ]);
    expect((await store.listSessions({ prefix: 'agent:main:telegram' })).map((s) => s.key)).toEqual([
      keys[0],
      keys[2],
      keys[1],
    ]);
    expect(await store.listSessions({ limit: 2 })).toHaveLength(2);
    expect(await store.listSessions({ prefix: 'agent:main:slack' })).toEqual([]);
  });

  it.each(['../etc/passwd', 'agent:main:telegram:dm:..', 'agent:main:telegram:dm:1/2', ''])(
    'rejects the invalid key %j',
    async (key) => {
      const store = fixture.fresh();
      await expect(store.getOrCreateSession(key)).rejects.toMatchObject({ code: 'session_key_invalid' });
      await expect(store.rotateSession(key)).rejects.toMatchObject({ code: 'session_key_invalid' });
      await expect(store.updateSession(key, { yolo: true })).rejects.toMatchObject({
        code: 'session_key_invalid',
      });
    },
  );

  it('rejects an invalid session id', async () => {
    const store = fixture.fresh();
    await expect(store.sessionKeyOf('../../x')).rejects.toMatchObject({ code: 'session_key_invalid' });
  });
});
