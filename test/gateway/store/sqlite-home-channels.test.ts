import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, runMigrations } from '../../../src/gateway/store/sqlite-migrations.js';
import { silentLogger } from '../../helpers/test-config.js';
import { manualClock, storeFixture } from './store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

describe('sqlite gateway store: home channels', () => {
  it('has none until one is set, then returns it with who set it and when', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    expect(await store.getHomeChannel('telegram')).toBeUndefined();
    const home = await store.setHomeChannel({ platform: 'telegram', chatId: '-1001', setBy: '42' });
    expect(home).toEqual({
      platform: 'telegram',
      chatId: '-1001',
      threadId: undefined,
      setBy: '42',
      setAt: clock.now(),
    });
    expect(await store.getHomeChannel('telegram')).toEqual(home);
  });

  it('keeps one per platform: a second set replaces it (thread included), other platforms are apart', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    await store.setHomeChannel({ platform: 'telegram', chatId: '-1001', threadId: '7', setBy: '42' });
    await store.setHomeChannel({ platform: 'discord', chatId: 'chan-9', setBy: 'd1', setAt: 5 });
    clock.advance(60_000);
    await store.setHomeChannel({ platform: 'telegram', chatId: '42', setBy: '43' });
    expect(await store.getHomeChannel('telegram')).toEqual({
      platform: 'telegram',
      chatId: '42',
      threadId: undefined,
      setBy: '43',
      setAt: clock.now(),
    });
    expect(await store.getHomeChannel('discord')).toEqual({
      platform: 'discord',
      chatId: 'chan-9',
      threadId: undefined,
      setBy: 'd1',
      setAt: 5,
    });
    expect(store.db.prepare('SELECT count(*) FROM home_channels').pluck().get()).toBe(2);
  });

  it('survives a reopen of the file', async () => {
    const path = join(fixture.dir(), 'state.db');
    const first = fixture.open(path);
    await first.setHomeChannel({ platform: 'test', chatId: 'c1', threadId: 't1', setBy: 'alice' });
    await first.close();
    const second = fixture.open(path);
    expect(await second.getHomeChannel('test')).toMatchObject({
      chatId: 'c1',
      threadId: 't1',
      setBy: 'alice',
    });
  });

  it('refuses empty or oversized ids with store_failed', async () => {
    const store = fixture.fresh();
    await expect(store.setHomeChannel({ platform: '', chatId: 'c', setBy: 'u' })).rejects.toMatchObject({
      code: 'store_failed',
    });
    await expect(store.setHomeChannel({ platform: 'test', chatId: '', setBy: 'u' })).rejects.toMatchObject({
      code: 'store_failed',
    });
    await expect(
      store.setHomeChannel({ platform: 'test', chatId: 'c', threadId: 'x'.repeat(600), setBy: 'u' }),
    ).rejects.toMatchObject({ code: 'store_failed' });
    await expect(store.getHomeChannel('')).rejects.toMatchObject({ code: 'store_failed' });
    expect(await store.getHomeChannel('test')).toBeUndefined();
  });

  it('adds the table to a file written before home channels existed', async () => {
    const path = join(fixture.dir(), 'state.db');
    const db = new BetterSqlite3(path);
    const before = MIGRATIONS.filter((m) => m.version < 4);
    expect(runMigrations(db, silentLogger, before)).toEqual([1, 2, 3]);
    db.close();
    const store = fixture.open(path);
    expect(await store.getHomeChannel('test')).toBeUndefined();
    await store.setHomeChannel({ platform: 'test', chatId: 'c1', setBy: 'alice' });
    expect((await store.getHomeChannel('test'))?.chatId).toBe('c1');
  });
});
