import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SqliteDatabase } from '../../../src/gateway/store/sqlite-database.js';
import type { SqliteGatewayStore } from '../../../src/gateway/store/sqlite-gateway-store.js';
import { createMessageIndexer, INDEX_BATCH_SIZE } from '../../../src/gateway/store/sqlite-message-indexer.js';
import {
  LATEST_SCHEMA_VERSION,
  MIGRATIONS,
  runMigrations,
} from '../../../src/gateway/store/sqlite-migrations.js';
import { silentLogger } from '../../helpers/test-config.js';
import { manualClock, storeFixture } from './store-fixture.js';

const fixture = storeFixture();
afterEach(async () => {
  vi.useRealTimers();
  await fixture.cleanup();
});

const KEY = 'agent:main:telegram:dm:42';

/** A store whose index only moves when a test makes it (no background catch-up). */
function manualStore(path = join(fixture.dir(), 'state.db')): SqliteGatewayStore {
  return fixture.open(path, manualClock(), { searchIndexIntervalMs: 0 });
}

function watermark(db: SqliteDatabase): number {
  return Number(db.prepare('SELECT indexed_to FROM messages_fts_watermark').pluck().get());
}

function lastId(db: SqliteDatabase): number {
  return Number(db.prepare('SELECT coalesce(max(id), 0) FROM messages').pluck().get());
}

/** Rows in the FTS index, read from the index itself (not through the content view). */
function indexedRows(db: SqliteDatabase): number {
  db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_rows USING fts5vocab(main, messages_fts, row)');
  return Number(db.prepare("SELECT doc FROM temp.fts_rows WHERE term = 'ell'").pluck().get() ?? 0);
}

/** Throws when the index differs from `searchable_messages` (rank = 1: compare row by row). */
function integrityCheck(db: SqliteDatabase): void {
  db.prepare("INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)").run();
}

async function seqsFound(store: SqliteGatewayStore, query: string): Promise<number[]> {
  return (await store.searchMessages(query)).map((hit) => hit.seq).sort((a, b) => a - b);
}

describe('deferred search indexing', () => {
  it('leaves appends out of the index until a search, which catches up completely first', async () => {
    const store = manualStore();
    const { sessionId } = await store.getOrCreateSession(KEY);
    const many = Array.from({ length: INDEX_BATCH_SIZE * 2 + 7 }, (_, i) => ({
      role: 'user' as const,
      content: `hello number ${i}`,
    }));
    await store.appendMessages(sessionId, many);
    await store.appendMessages(sessionId, [{ role: 'assistant', content: 'the last hello, marmalade' }]);
    expect(watermark(store.db)).toBe(0);
    expect(indexedRows(store.db)).toBe(0);

    expect(await seqsFound(store, 'marmalade')).toEqual([many.length + 1]);
    expect(await seqsFound(store, 'number 1003')).toEqual([1004]);
    expect(watermark(store.db)).toBe(lastId(store.db));
    expect(indexedRows(store.db)).toBe(many.length + 1);
    expect(() => integrityCheck(store.db)).not.toThrow();
  });

  it('catches up in bounded batches and reports when nothing is left', async () => {
    const store = manualStore();
    const { sessionId } = await store.getOrCreateSession(KEY);
    await store.appendMessages(sessionId, [
      { role: 'system', content: 'hello system' },
      { role: 'user', content: 'hello one' },
      { role: 'tool', content: 'hello tool', toolCallId: 'c1' },
      { role: 'assistant', content: 'hello two' },
      { role: 'assistant', content: null },
    ]);
    const indexer = createMessageIndexer(store.db, silentLogger);
    expect(indexer.catchUp(2)).toBe(false);
    expect(watermark(store.db)).toBe(2);
    expect(indexedRows(store.db)).toBe(1); // the system prompt is never indexed
    expect(indexer.catchUp(2)).toBe(false);
    expect(indexer.catchUp(2)).toBe(true);
    expect(watermark(store.db)).toBe(5);
    expect(indexedRows(store.db)).toBe(2);
    expect(indexer.catchUp()).toBe(true);
    expect(() => integrityCheck(store.db)).not.toThrow();
  });

  it('keeps the index exact when indexed and not-yet-indexed rows are updated or deleted', async () => {
    const store = manualStore();
    const { db } = store;
    const { sessionId } = await store.getOrCreateSession(KEY);
    await store.appendMessages(sessionId, [
      { role: 'user', content: 'hello apricot' }, // 1: indexed, then edited
      { role: 'user', content: 'hello banana' }, // 2: indexed, then deleted
      { role: 'tool', content: 'hello cherry', toolCallId: 'c1' }, // 3: indexed range, becomes searchable
    ]);
    await store.searchMessages('hello');
    expect(watermark(db)).toBe(3);
    await store.appendMessages(sessionId, [
      { role: 'user', content: 'hello damson' }, // 4: not indexed yet, then edited
      { role: 'user', content: 'hello elder' }, // 5: not indexed yet, then deleted
      { role: 'tool', content: 'hello fig', toolCallId: 'c2' }, // 6: not indexed yet, becomes searchable
    ]);
    const update = db.prepare('UPDATE messages SET content = ? WHERE session_id = ? AND seq = ?');
    const setRole = db.prepare("UPDATE messages SET role = 'user' WHERE session_id = ? AND seq = ?");
    const remove = db.prepare('DELETE FROM messages WHERE session_id = ? AND seq = ?');
    update.run('hello grape', sessionId, 1);
    update.run('hello honeydew', sessionId, 4);
    remove.run(sessionId, 2);
    remove.run(sessionId, 5);
    setRole.run(sessionId, 3);
    setRole.run(sessionId, 6);
    expect(watermark(db)).toBe(3);

    expect(await seqsFound(store, 'apricot')).toEqual([]);
    expect(await seqsFound(store, 'grape')).toEqual([1]);
    expect(await seqsFound(store, 'banana')).toEqual([]);
    expect(await seqsFound(store, 'cherry')).toEqual([3]);
    expect(await seqsFound(store, 'damson')).toEqual([]);
    expect(await seqsFound(store, 'honeydew')).toEqual([4]);
    expect(await seqsFound(store, 'elder')).toEqual([]);
    expect(await seqsFound(store, 'fig')).toEqual([6]);
    expect(await seqsFound(store, 'hello')).toEqual([1, 3, 4, 6]);
    expect(() => integrityCheck(db)).not.toThrow();

    // Making an indexed row unsearchable takes it out.
    db.prepare("UPDATE messages SET role = 'tool' WHERE session_id = ? AND seq = 3").run(sessionId);
    expect(await seqsFound(store, 'hello')).toEqual([1, 4, 6]);
    expect(() => integrityCheck(db)).not.toThrow();
  });

  it('indexes at once a row that reuses an id at or below the watermark', async () => {
    const store = manualStore();
    const { db } = store;
    const { sessionId } = await store.getOrCreateSession(KEY);
    await store.appendMessages(sessionId, [
      { role: 'user', content: 'hello kiwi' },
      { role: 'user', content: 'hello lime' },
    ]);
    expect(await seqsFound(store, 'hello')).toEqual([1, 2]);
    db.prepare('DELETE FROM messages WHERE id = 2').run();
    await store.appendMessages(sessionId, [{ role: 'user', content: 'hello mango' }]);
    expect(lastId(db)).toBe(2); // SQLite handed out id 2 again
    expect(watermark(db)).toBe(2);
    expect(await seqsFound(store, 'mango')).toEqual([2]);
    expect(await seqsFound(store, 'lime')).toEqual([]);
    expect(() => integrityCheck(db)).not.toThrow();
  });

  it('rebuilds the whole index and moves the watermark with it', async () => {
    const store = manualStore();
    const { sessionId } = await store.getOrCreateSession(KEY);
    await store.appendMessages(sessionId, [
      { role: 'user', content: 'hello nectarine' },
      { role: 'assistant', content: 'hello olive' },
    ]);
    createMessageIndexer(store.db, silentLogger).rebuild();
    expect(watermark(store.db)).toBe(2);
    expect(() => integrityCheck(store.db)).not.toThrow();
    await store.appendMessages(sessionId, [{ role: 'user', content: 'hello peach' }]);
    expect(await seqsFound(store, 'hello')).toEqual([1, 2, 3]);
    expect(() => integrityCheck(store.db)).not.toThrow();
  });

  it('indexes what is left on close()', async () => {
    const path = join(fixture.dir(), 'state.db');
    const store = manualStore(path);
    const { sessionId } = await store.getOrCreateSession(KEY);
    await store.appendMessages(sessionId, [{ role: 'user', content: 'hello quince' }]);
    expect(watermark(store.db)).toBe(0);
    await store.close();
    await store.close(); // idempotent

    const db = new BetterSqlite3(path);
    try {
      expect(watermark(db)).toBe(1);
      expect(indexedRows(db)).toBe(1);
      expect(() => integrityCheck(db)).not.toThrow();
    } finally {
      db.close();
    }
  });

  it('catches up in the background in bounded batches and stops on close()', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setImmediate', 'clearImmediate'] });
    const store = fixture.open(join(fixture.dir(), 'state.db'), manualClock(), {
      searchIndexIntervalMs: 1000,
    });
    // Writes commit at the next setImmediate (the group commit), faked here too: run it by hand.
    const created = store.getOrCreateSession(KEY);
    vi.advanceTimersByTime(0);
    const { sessionId } = await created;
    const count = INDEX_BATCH_SIZE + 10;
    const appended = store.appendMessages(
      sessionId,
      Array.from({ length: count }, (_, i) => ({ role: 'user' as const, content: `hello ${i}` })),
    );
    vi.advanceTimersByTime(0);
    await appended;
    vi.advanceTimersByTime(999);
    expect(watermark(store.db)).toBe(0);
    vi.advanceTimersToNextTimer(); // the interval: one batch
    expect(watermark(store.db)).toBe(INDEX_BATCH_SIZE);
    vi.advanceTimersByTime(1); // the batch was full: the rest right after, not a second later
    expect(watermark(store.db)).toBe(count);
    expect(() => integrityCheck(store.db)).not.toThrow();
    await store.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('search index migration', () => {
  it('keeps the rows indexed by the previous schema and indexes new ones once', async () => {
    const path = join(fixture.dir(), 'state.db');
    const old = new BetterSqlite3(path);
    expect(
      runMigrations(
        old,
        silentLogger,
        MIGRATIONS.filter((m) => m.version <= 5),
      ),
    ).toEqual([1, 2, 3, 4, 5]);
    old.exec(`
      INSERT INTO session_ids (id, session_key, started_at) VALUES ('sess0000old1', '${KEY}', 1);
      INSERT INTO sessions (key, session_id, created_at, session_started_at, updated_at)
        VALUES ('${KEY}', 'sess0000old1', 1, 1, 1);
      INSERT INTO messages (session_id, seq, role, content, created_at) VALUES
        ('sess0000old1', 1, 'system', 'hello rules', 1),
        ('sess0000old1', 2, 'user', 'hello raspberry', 1),
        ('sess0000old1', 3, 'assistant', 'hello strawberry', 1);
    `);
    expect(indexedRows(old)).toBe(2); // the version-1 insert trigger indexed them
    old.close();

    const store = manualStore(path);
    const { db } = store;
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION);
    expect(watermark(db)).toBe(3);
    const { sessionId } = await store.getOrCreateSession(KEY);
    expect(sessionId).toBe('sess0000old1');
    await store.appendMessages(sessionId, [{ role: 'user', content: 'hello tangerine' }]);
    expect(indexedRows(db)).toBe(2);
    expect(await seqsFound(store, 'hello')).toEqual([2, 3, 4]);
    expect(indexedRows(db)).toBe(3);
    expect(() => integrityCheck(db)).not.toThrow();
    db.prepare('DELETE FROM messages WHERE seq = 2').run();
    expect(await seqsFound(store, 'berry')).toEqual([3]);
    expect(() => integrityCheck(db)).not.toThrow();
  });

  it('starts an empty database at watermark 0', () => {
    const store = manualStore();
    expect(watermark(store.db)).toBe(0);
    expect(
      store.db.prepare("SELECT name FROM sqlite_master WHERE name = 'messages_fts_insert'").get(),
    ).toBeUndefined();
  });
});
