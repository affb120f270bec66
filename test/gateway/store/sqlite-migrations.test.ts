import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import { openSqliteDatabase } from '../../../src/gateway/store/sqlite-database.js';
import {
  LATEST_SCHEMA_VERSION,
  MIGRATIONS,
  runMigrations,
} from '../../../src/gateway/store/sqlite-migrations.js';
import { silentLogger } from '../../helpers/test-config.js';
import { storeFixture } from './store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

function tableNames(db: BetterSqlite3.Database): string[] {
  return db
    .prepare("SELECT name FROM sqlite_master WHERE type IN ('table') ORDER BY name")
    .pluck()
    .all()
    .filter((name): name is string => typeof name === 'string');
}

describe('state database migrations', () => {
  it('creates the schema in an empty directory, with WAL, foreign keys and a busy timeout', async () => {
    const path = join(fixture.dir(), 'nested', 'state.db');
    const store = fixture.open(path);
    const { db } = store;
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(tableNames(db)).toEqual(
      expect.arrayContaining([
        'sessions',
        'session_ids',
        'messages',
        'messages_fts',
        'processed_events',
        'deliveries',
        'pairing_codes',
        'paired_users',
        'parked_turns',
        'approval_requests',
        'approval_grants',
        'approval_yolo',
      ]),
    );
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await store.getOrCreateSession('agent:main:telegram:dm:1');
    expect(statSync(`${path}-wal`).mode & 0o777).toBe(0o600);
  });

  it('re-opens an existing file without re-running migrations and keeps the data', async () => {
    const path = join(fixture.dir(), 'state.db');
    const first = fixture.open(path);
    const session = await first.getOrCreateSession('agent:main:telegram:dm:1');
    await first.close();
    await first.close(); // idempotent

    const db = new BetterSqlite3(path);
    try {
      expect(runMigrations(db, silentLogger)).toEqual([]);
    } finally {
      db.close();
    }
    const second = fixture.open(path);
    expect(await second.getSession('agent:main:telegram:dm:1')).toEqual(session);
    await second.close();
    expect(existsSync(`${path}-wal`)).toBe(false); // the last connection folded the WAL back
  });

  it('upgrades a file written at an older version', async () => {
    const path = join(fixture.dir(), 'state.db');
    const db = new BetterSqlite3(path);
    expect(runMigrations(db, silentLogger, MIGRATIONS.slice(0, 1))).toEqual([1]);
    db.prepare(
      `INSERT INTO paired_users (platform, user_id, user_name, approved_by, approved_at)
       VALUES ('telegram', '42', 'ann', 'cli', 1)`,
    ).run();
    db.close();

    const store = fixture.open(path);
    expect(store.db.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION);
    expect(await store.isPairedUser('telegram', '42')).toBe(true);
  });

  it('keeps the outbox rows of version 6 when the table is rebuilt for prompts (version 7)', async () => {
    const path = join(fixture.dir(), 'state.db');
    const db = new BetterSqlite3(path);
    expect(
      runMigrations(
        db,
        silentLogger,
        MIGRATIONS.filter((m) => m.version <= 6),
      ),
    ).toEqual([1, 2, 3, 4, 5, 6]);
    db.prepare(
      `INSERT INTO outbox (id, platform, session_key, turn_id, kind, origin, event_ids, text, created_at,
         attempts, last_attempt_at)
       VALUES ('final:t1', 'test', 'agent:main:test:dm:c1', 't1', 'final',
         '{"platform":"test","chatType":"dm","chatId":"c1"}', '["test:e1"]', 'kept', 5, 2, 6)`,
    ).run();
    expect(() =>
      db
        .prepare(
          `INSERT INTO outbox (id, platform, session_key, turn_id, kind, origin, text, created_at)
         VALUES ('parked:p', 'test', 'agent:main:test:dm:c1', 't2', 'parked', '{}', '', 1)`,
        )
        .run(),
    ).toThrow(/CHECK/);
    db.close();

    const store = fixture.open(path);
    expect(await store.getOutbox('final:t1')).toMatchObject({
      text: 'kept',
      eventIds: ['test:e1'],
      attempts: 2,
      lastAttemptAt: 6,
      prompt: undefined,
    });
    expect((await store.listOutbox({ platform: 'test' })).map((e) => e.id)).toEqual(['final:t1']);
    const indexes = store.db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox'")
      .pluck()
      .all();
    expect(indexes).toEqual(expect.arrayContaining(['outbox_pending', 'outbox_age']));
  });

  it('refuses a file from a newer release', () => {
    const path = join(fixture.dir(), 'state.db');
    const db = new BetterSqlite3(path);
    db.pragma(`user_version = ${LATEST_SCHEMA_VERSION + 1}`);
    db.close();
    let caught: unknown;
    try {
      openSqliteDatabase({ path, logger: silentLogger });
    } catch (error) {
      caught = error;
    }
    expect(isHermesError(caught, 'store_failed')).toBe(true);
    expect(String(caught)).toMatch(/newer than this release/);
  });

  it('rolls a failing migration back completely and keeps the previous version', () => {
    const path = join(fixture.dir(), 'state.db');
    const db = new BetterSqlite3(path);
    try {
      const broken = [
        ...MIGRATIONS.slice(0, 1),
        { version: 2, name: 'broken', sql: 'CREATE TABLE half_done (x); CREATE TABLE oops (' },
      ];
      expect(() => runMigrations(db, silentLogger, broken)).toThrow();
      expect(db.pragma('user_version', { simple: true })).toBe(1);
      expect(tableNames(db)).not.toContain('half_done');
      expect(runMigrations(db, silentLogger)).toEqual(MIGRATIONS.slice(1).map((m) => m.version));
    } finally {
      db.close();
    }
  });

  it('lets two connections open a fresh file at the same time', () => {
    const path = join(fixture.dir(), 'state.db');
    const a = openSqliteDatabase({ path, logger: silentLogger });
    const b = openSqliteDatabase({ path, logger: silentLogger });
    try {
      expect(b.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION);
      expect(runMigrations(a, silentLogger)).toEqual([]);
    } finally {
      a.close();
      b.close();
    }
  });

  it('reports an unopenable path as store_failed', () => {
    const dir = fixture.dir();
    let caught: unknown;
    try {
      openSqliteDatabase({ path: dir, logger: silentLogger }); // a directory, not a file
    } catch (error) {
      caught = error;
    }
    expect(isHermesError(caught, 'store_failed')).toBe(true);
  });

  it('also runs in memory (no WAL there)', async () => {
    const store = fixture.open(':memory:');
    expect(store.db.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION);
    const { sessionId } = await store.getOrCreateSession('agent:main:api:dm:local');
    expect(await store.appendMessages(sessionId, [{ role: 'user', content: 'hi there' }])).toHaveLength(1);
    await store.ping();
  });

  it('fails calls after close with store_failed', async () => {
    const store = fixture.fresh();
    await store.close();
    await expect(store.getOrCreateSession('agent:main:telegram:dm:1')).rejects.toMatchObject({
      code: 'store_failed',
    });
    await expect(store.ping()).rejects.toMatchObject({ code: 'store_failed' });
  });
});
