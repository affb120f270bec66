import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteApprovalStore } from '../../../src/gateway/store/sqlite-approval-store.js';
import {
  describeApprovalStoreConformance,
  makeRequest,
  testClock,
} from '../../approval/approval-store-conformance.js';
import { silentLogger } from '../../helpers/test-config.js';
import { storeFixture } from './store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

// Sharing the gateway store's connection (the embedded default).
describeApprovalStoreConformance('sqlite (shared connection)', async (clock) => {
  const gateway = fixture.fresh();
  const store = createSqliteApprovalStore(gateway.db, { logger: silentLogger, now: clock.now });
  fixture.onCleanup(() => store.close());
  return store;
});

// Opening its own file.
describeApprovalStoreConformance('sqlite (own file)', async (clock) => {
  const store = createSqliteApprovalStore(join(fixture.dir(), 'state.db'), {
    logger: silentLogger,
    now: clock.now,
  });
  fixture.onCleanup(() => store.close());
  return store;
});

describe('sqlite approval store', () => {
  it('shares requests and decisions between two connections to one file (two processes)', async () => {
    const clock = testClock();
    const path = join(fixture.dir(), 'state.db');
    const a = createSqliteApprovalStore(path, { logger: silentLogger, now: clock.now });
    const b = createSqliteApprovalStore(path, { logger: silentLogger, now: clock.now });
    fixture.onCleanup(async () => {
      await a.close();
      await b.close();
    });
    const request = makeRequest(clock);
    await a.open(request);
    expect(await b.open(makeRequest(clock))).toEqual({ request, coalesced: true });
    const results = await Promise.all([
      a.decide(request.id, { choice: 'once', userId: '42', decidedAt: clock.now() }),
      b.decide(request.id, { choice: 'deny', userId: '42', decidedAt: clock.now() }),
      a.decide(request.id, { choice: 'session', userId: '42', decidedAt: clock.now() }),
    ]);
    expect(results.filter((result) => result.status === 'recorded')).toHaveLength(1);
    expect(await a.outcome(request.id)).toEqual(await b.outcome(request.id));
    expect([await a.claim(request.id), await b.claim(request.id)].filter(Boolean)).toHaveLength(1);
  });

  it('survives a restart: pending requests, decisions and grants are on disk', async () => {
    const clock = testClock();
    const path = join(fixture.dir(), 'state.db');
    const before = createSqliteApprovalStore(path, { logger: silentLogger, now: clock.now });
    const pending = makeRequest(clock, { command: 'rm -rf a' });
    const granted = makeRequest(clock, { command: 'rm -rf b' });
    await before.open(pending);
    await before.open(granted);
    await before.decide(granted.id, { choice: 'session', userId: '42', decidedAt: clock.now() });
    await before.setSessionYolo(pending.sessionKey, true);
    await before.close();

    const after = createSqliteApprovalStore(path, { logger: silentLogger, now: clock.now });
    fixture.onCleanup(() => after.close());
    expect(await after.outcome(pending.id)).toEqual({ state: 'pending', request: pending });
    expect(await after.outcome(granted.id)).toMatchObject({ state: 'approved', scope: 'session' });
    expect(await after.sessionGrants(pending.sessionKey)).toEqual(
      new Set(['recursive delete', 'git force push']),
    );
    expect(await after.sessionYolo(pending.sessionKey)).toBe(true);
  });

  it('forgets requests after retention and session state after its TTL', async () => {
    const clock = testClock();
    const gateway = fixture.fresh();
    const store = createSqliteApprovalStore(gateway.db, {
      logger: silentLogger,
      now: clock.now,
      retentionMs: 60_000,
      sessionTtlMs: 1000,
    });
    const old = makeRequest(clock, { command: 'old' });
    await store.open(old);
    await store.decide(old.id, { choice: 'session', userId: '42', decidedAt: clock.now() });
    await store.setSessionYolo(old.sessionKey, true);
    clock.advance(1000);
    expect(await store.sessionGrants(old.sessionKey)).toEqual(new Set());
    expect(await store.sessionYolo(old.sessionKey)).toBe(false);
    clock.set(old.expiresAt + 60_000);
    await store.open(makeRequest(clock, { command: 'new' }));
    expect(await store.outcome(old.id)).toEqual({ state: 'unknown' });
  });

  it('reports use after close as approval_store_failed and leaves a shared connection open', async () => {
    const gateway = fixture.fresh();
    const store = createSqliteApprovalStore(gateway.db, { logger: silentLogger });
    await store.close();
    await store.close();
    await expect(store.outcome('x')).rejects.toMatchObject({ code: 'approval_store_failed' });
    expect(gateway.db.open).toBe(true);
    await gateway.close();
    const again = createSqliteApprovalStore(join(fixture.dir(), 'state.db'), { logger: silentLogger });
    await again.close();
    await expect(again.listPending('k')).rejects.toMatchObject({ code: 'approval_store_failed' });
  });
});
