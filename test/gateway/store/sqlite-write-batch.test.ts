import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSqliteWriteBatch,
  MAX_WRITES_PER_COMMIT,
} from '../../../src/gateway/store/sqlite-write-batch.js';
import { storeFixture } from './store-fixture.js';

const fixture = storeFixture();
const open: Database[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) db.close();
  await fixture.cleanup();
});

/** A WAL database with a plain table and one whose foreign key is checked only at COMMIT. */
function database(): { db: Database; path: string; other: () => Database } {
  const path = join(fixture.dir(), 'batch.db');
  const db = new BetterSqlite3(path);
  open.push(db);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.exec(`
    CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
    CREATE TABLE refs (id INTEGER PRIMARY KEY,
      note_id INTEGER NOT NULL REFERENCES notes (id) DEFERRABLE INITIALLY DEFERRED);
  `);
  return {
    db,
    path,
    other: () => {
      const second = new BetterSqlite3(path, { readonly: true });
      open.push(second);
      return second;
    },
  };
}

const insertNote = (db: Database, id: number) => () => {
  db.prepare('INSERT INTO notes (id, text) VALUES (?, ?)').run(id, `note ${id}`);
  return id;
};
const noteIds = (db: Database) => db.prepare('SELECT id FROM notes ORDER BY id').pluck().all();

describe('group commit (createSqliteWriteBatch)', () => {
  it('runs the writes of one tick in one transaction, in call order, and a lone write by itself', async () => {
    const { db } = database();
    const batch = createSqliteWriteBatch(db);
    const seen: { id: number; inTransaction: boolean }[] = [];
    const probe = (id: number) => () => {
      insertNote(db, id)();
      seen.push({ id, inTransaction: db.inTransaction });
      return id;
    };

    expect(await Promise.all([batch.write(probe(1)), batch.write(probe(2)), batch.write(probe(3))])).toEqual([
      1, 2, 3,
    ]);
    expect(seen).toEqual([1, 2, 3].map((id) => ({ id, inTransaction: true })));

    seen.length = 0;
    expect(await batch.write(probe(4))).toBe(4);
    expect(seen).toEqual([{ id: 4, inTransaction: false }]);
    expect(noteIds(db)).toEqual([1, 2, 3, 4]);
  });

  it('runs nothing before the next tick and resolves only once another connection can read the write', async () => {
    const { db, other } = database();
    const batch = createSqliteWriteBatch(db);
    const reader = other();
    const pending = [batch.write(insertNote(db, 1)), batch.write(insertNote(db, 2))];
    expect(noteIds(db)).toEqual([]);
    const visibleWhenResolved = await pending[0]?.then(() => noteIds(reader));
    expect(visibleWhenResolved).toEqual([1, 2]);
    await Promise.all(pending);
  });

  it('a write that throws is undone and rejected alone; the rest of its group commits', async () => {
    const { db } = database();
    const batch = createSqliteWriteBatch(db);
    const failing = () => {
      insertNote(db, 2)();
      throw new Error('handler bug');
    };
    const results = await Promise.allSettled([
      batch.write(insertNote(db, 1)),
      batch.write(failing),
      batch.write(insertNote(db, 3)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain('handler bug');
    expect(noteIds(db)).toEqual([1, 3]);
    expect(db.inTransaction).toBe(false);
  });

  it('a failed COMMIT rejects every write of the group and keeps none of them', async () => {
    const { db } = database();
    const batch = createSqliteWriteBatch(db);
    // The deferred foreign key is checked at COMMIT: the whole group cannot commit.
    const danglingRef = () => db.prepare('INSERT INTO refs (id, note_id) VALUES (1, 999)').run().changes;
    const results = await Promise.allSettled([batch.write(insertNote(db, 1)), batch.write(danglingRef)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/i);
    expect(noteIds(db)).toEqual([]);
    expect(db.inTransaction).toBe(false);

    expect(await batch.write(insertNote(db, 5))).toBe(5);
    expect(noteIds(db)).toEqual([5]);
  });

  it('when the transaction ends inside the group, no later write runs outside it and none is reported done', async () => {
    const { db } = database();
    const batch = createSqliteWriteBatch(db);
    // What SQLite does by itself on some I/O errors: the whole transaction is rolled back.
    const endsTransaction = () => {
      db.exec('ROLLBACK');
      return 0;
    };
    const results = await Promise.allSettled([
      batch.write(insertNote(db, 1)),
      batch.write(endsTransaction),
      batch.write(insertNote(db, 3)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(noteIds(db)).toEqual([]);
    expect(db.inTransaction).toBe(false);
  });

  it(`splits a tick with more than ${MAX_WRITES_PER_COMMIT} writes into several commits`, async () => {
    const { db, other } = database();
    const batch = createSqliteWriteBatch(db);
    const reader = other();
    const total = MAX_WRITES_PER_COMMIT * 2 + 3;
    // Another connection sees only committed rows: the count it reads names the write's group.
    const committedBefore: number[] = [];
    const write = (id: number) => () => {
      committedBefore.push(Number(reader.prepare('SELECT count(*) FROM notes').pluck().get()));
      return insertNote(db, id)();
    };
    await Promise.all(Array.from({ length: total }, (_, i) => batch.write(write(i + 1))));
    expect(noteIds(db)).toHaveLength(total);
    const sizes = new Map<number, number>();
    for (const seen of committedBefore) sizes.set(seen, (sizes.get(seen) ?? 0) + 1);
    expect([...sizes]).toEqual([
      [0, MAX_WRITES_PER_COMMIT],
      [MAX_WRITES_PER_COMMIT, MAX_WRITES_PER_COMMIT],
      [MAX_WRITES_PER_COMMIT * 2, 3],
    ]);
  });

  it('flush() runs the queued writes at once', async () => {
    const { db } = database();
    const batch = createSqliteWriteBatch(db);
    const pending = Promise.all([batch.write(insertNote(db, 1)), batch.write(insertNote(db, 2))]);
    batch.flush();
    expect(noteIds(db)).toEqual([1, 2]);
    expect(await pending).toEqual([1, 2]);
  });
});

describe('gateway store writes go through the group commit', () => {
  it('concurrent turns write in one commit and every caller sees its own result', async () => {
    const dir = fixture.dir();
    const path = join(dir, 'state.db');
    const store = fixture.open(path);
    const keys = Array.from({ length: 20 }, (_, i) => `agent:main:api_server:dm:c${i}`);
    const sessions = await Promise.all(keys.map((key) => store.getOrCreateSession(key)));
    expect(sessions.map((s) => s.key)).toEqual(keys);
    const appended = await Promise.all(
      sessions.map((s, i) => store.appendMessages(s.sessionId, [{ role: 'user', content: `hello ${i}` }])),
    );
    expect(appended.map((batch) => batch[0]?.seq)).toEqual(keys.map(() => 1));

    // One of them fails (an unknown session id): only that caller hears of it.
    const results = await Promise.allSettled([
      store.appendMessages(sessions[0]?.sessionId ?? '', [{ role: 'assistant', content: 'hi' }]),
      store.appendMessages('s_unknownsessionid000000', [{ role: 'assistant', content: 'lost' }]),
      store.appendMessages(sessions[1]?.sessionId ?? '', [{ role: 'assistant', content: 'hi' }]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'store_failed' });
    expect(await store.countMessages(sessions[0]?.sessionId ?? '')).toBe(2);
  });

  it('close() commits the writes already accepted; later writes are refused', async () => {
    const path = join(fixture.dir(), 'state.db');
    const store = fixture.open(path);
    const { sessionId } = await store.getOrCreateSession('agent:main:api_server:dm:closing');
    const accepted = store.appendMessages(sessionId, [{ role: 'user', content: 'just before close' }]);
    await store.close();
    expect((await accepted)[0]?.content).toBe('just before close');
    await expect(store.appendMessages(sessionId, [{ role: 'user', content: 'after' }])).rejects.toMatchObject(
      {
        code: 'store_failed',
        message: expect.stringContaining('closed'),
      },
    );

    const reopened = fixture.open(path);
    const messages = await reopened.listMessages(sessionId);
    expect(messages.map((m) => m.content)).toEqual(['just before close']);
  });
});
