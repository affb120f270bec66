import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock, storeFixture } from './store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

const RACE_SCRIPT = fileURLToPath(new URL('./fixtures/race-store.ts', import.meta.url));

describe('sqlite gateway store: inbound dedupe', () => {
  it('is true the first time and false for a retry of the same event', async () => {
    const store = fixture.fresh();
    expect(await store.markEventProcessed('telegram', 'update-1', 60_000)).toBe(true);
    expect(await store.markEventProcessed('telegram', 'update-1', 60_000)).toBe(false);
    expect(await store.markEventProcessed('discord', 'update-1', 60_000)).toBe(true);
    expect(await store.markEventProcessed('telegram', 'update-2', 60_000)).toBe(true);
  });

  it('forgets a released id (an event that could not be accepted), and only that one', async () => {
    const store = fixture.fresh();
    await store.markEventProcessed('webhook', 'gh:a', 60_000);
    await store.markEventProcessed('webhook', 'gh:b', 60_000);
    await store.releaseEvent('webhook', 'gh:a');
    await store.releaseEvent('webhook', 'gh:never-seen');
    expect(await store.markEventProcessed('webhook', 'gh:a', 60_000)).toBe(true);
    expect(await store.markEventProcessed('webhook', 'gh:b', 60_000)).toBe(false);
  });

  it('lets exactly one of many concurrent calls win', async () => {
    const store = fixture.fresh();
    const results = await Promise.all(
      Array.from({ length: 25 }, () => store.markEventProcessed('feishu', 'evt-x', 60_000)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('treats an id as new again once its record expired, and prunes expired rows', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    for (let i = 0; i < 100; i += 1) await store.markEventProcessed('telegram', `old-${i}`, 1000);
    clock.advance(1000);
    expect(await store.markEventProcessed('telegram', 'old-0', 1000)).toBe(true);
    expect(await store.markEventProcessed('telegram', 'old-0', 1000)).toBe(false);
    const rows = () => Number(store.db.prepare('SELECT count(*) FROM processed_events').pluck().get());
    expect(rows()).toBeLessThan(100); // the calls above pruned a batch of expired rows as they went
    expect((await store.prune()).events).toBeGreaterThan(0);
    expect(rows()).toBe(1);
  });

  it('rejects a bad TTL or empty ids', async () => {
    const store = fixture.fresh();
    await expect(store.markEventProcessed('telegram', 'x', 0)).rejects.toMatchObject({
      code: 'store_failed',
    });
    await expect(store.markEventProcessed('telegram', '', 1000)).rejects.toMatchObject({
      code: 'store_failed',
    });
  });
});

describe('sqlite gateway store: delivery receipts', () => {
  it('records the first receipt of a key and returns it on retries', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    expect(await store.getDelivery('turn-1:0')).toBeUndefined();
    const first = await store.recordDelivery({
      receiptKey: 'turn-1:0',
      platform: 'telegram',
      chatId: '-100999',
      messageIds: ['501', '502'],
    });
    expect(first).toEqual({
      created: true,
      receipt: {
        receiptKey: 'turn-1:0',
        platform: 'telegram',
        chatId: '-100999',
        messageIds: ['501', '502'],
        deliveredAt: clock.now(),
      },
    });
    clock.advance(10);
    const retry = await store.recordDelivery({
      receiptKey: 'turn-1:0',
      platform: 'telegram',
      chatId: '-100999',
      messageIds: ['777'],
    });
    expect(retry).toEqual({ created: false, receipt: first.receipt });
    expect(await store.getDelivery('turn-1:0')).toEqual(first.receipt);
  });

  it('prunes receipts older than the retention', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    await store.recordDelivery({ receiptKey: 'old', platform: 'discord', chatId: '1', messageIds: [] });
    clock.advance(7 * 24 * 60 * 60 * 1000);
    await store.recordDelivery({ receiptKey: 'new', platform: 'discord', chatId: '1', messageIds: ['2'] });
    expect((await store.prune()).deliveries).toBe(1);
    expect(await store.getDelivery('old')).toBeUndefined();
    expect(await store.getDelivery('new')).toBeDefined();
    expect((await store.prune({ deliveryRetentionMs: 0 })).deliveries).toBe(1);
  });
});

describe('sqlite gateway store: several processes on one fresh file', () => {
  it('migrates once and gives every event, session and receipt exactly one winner', async () => {
    const path = join(fixture.dir(), 'state.db');
    const count = 60;
    const children = Array.from({ length: 4 }, () =>
      spawn(process.execPath, ['--import', 'tsx', RACE_SCRIPT, path, String(count)], {
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    );
    fixture.onCleanup(async () => {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    });
    const outputs = children.map(collect);
    await Promise.all(children.map((child) => waitFor(child, 'ready')));
    for (const child of children) child.stdin?.write('go\n');
    const results = (await Promise.all(outputs)).map(
      (text) =>
        JSON.parse(text.trim().split('\n').at(-1) ?? '{}') as {
          events: string[];
          sessions: Record<string, string>;
          deliveries: string[];
        },
    );

    const events = results.flatMap((r) => r.events);
    expect(events).toHaveLength(count);
    expect(new Set(events).size).toBe(count);
    const deliveries = results.flatMap((r) => r.deliveries);
    expect(deliveries).toHaveLength(count);
    expect(new Set(deliveries).size).toBe(count);
    for (let i = 0; i < count; i += 1) {
      const key = `agent:main:telegram:dm:${i}`;
      expect(new Set(results.map((r) => r.sessions[key])).size, key).toBe(1);
    }
    const store = fixture.open(path);
    expect((await store.listSessions({ limit: 1000 })).length).toBe(count);
  }, 60_000);
});

function collect(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`race child exited with ${code}: ${err}`));
    });
  });
}

function waitFor(child: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.split('\n').includes(line)) {
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.on('close', (code) => reject(new Error(`race child exited early with ${code}`)));
  });
}
