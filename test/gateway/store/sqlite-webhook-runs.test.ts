import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookRunInput } from '../../../src/gateway/store/gateway-store.js';
import { manualClock, storeFixture } from './store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

const RUN: WebhookRunInput = {
  runId: 'run_1',
  route: 'gh',
  deliveryId: 'd1',
  sessionKey: 'agent:main:webhook:webhook:webhook:gh:d1:webhook:gh',
  eventId: 'webhook:gh:d1',
};

describe('sqlite gateway store: webhook runs', () => {
  it('saves a queued run once, finds it by id and by event, and patches it', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    await store.saveWebhookRun(RUN);
    await store.saveWebhookRun({ ...RUN, route: 'other' });
    expect(await store.getWebhookRun('run_1')).toMatchObject({
      route: 'gh',
      status: 'queued',
      delivery: { status: 'pending' },
      createdAt: clock.now(),
    });
    expect((await store.findWebhookRunByEvent('webhook:gh:d1'))?.runId).toBe('run_1');
    clock.advance(10);
    expect(await store.updateWebhookRun('run_1', { status: 'done', result: 'ok' })).toBe(true);
    expect(await store.updateWebhookRun('run_missing', { status: 'done' })).toBe(false);
    expect(await store.getWebhookRun('run_1')).toMatchObject({
      status: 'done',
      result: 'ok',
      updatedAt: clock.now(),
    });
  });

  it('lets one caller at a time hold the delivery lease, and none once delivered', async () => {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    await store.saveWebhookRun(RUN);
    const claims = await Promise.all([
      store.claimWebhookDelivery('run_1', clock.now() + 1_000),
      store.claimWebhookDelivery('run_1', clock.now() + 1_000),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    // The holder died: once its lease ran out, the next caller takes over.
    clock.advance(1_000);
    expect(await store.claimWebhookDelivery('run_1', clock.now() + 1_000)).toBe(true);
    await store.updateWebhookRun('run_1', { delivery: { status: 'delivered', attempts: 1 } });
    clock.advance(5_000);
    expect(await store.claimWebhookDelivery('run_1', clock.now() + 1_000)).toBe(false);
    // Put back to pending (a delivery cut short by shutdown): claimable again at once.
    await store.updateWebhookRun('run_1', { delivery: { status: 'pending' } });
    expect(await store.claimWebhookDelivery('run_1', clock.now() + 1_000)).toBe(true);
  });

  it('shares runs and leases between two processes on one file, and prunes old runs', async () => {
    const path = join(fixture.dir(), 'state.db');
    const a = fixture.open(path);
    const b = fixture.open(path);
    await a.saveWebhookRun(RUN);
    const [fromA, fromB] = await Promise.all([
      a.claimWebhookDelivery('run_1', Date.now() + 60_000),
      b.claimWebhookDelivery('run_1', Date.now() + 60_000),
    ]);
    expect([fromA, fromB].filter(Boolean)).toHaveLength(1);
    expect(await b.pruneWebhookRuns(Date.now() + 1)).toBe(1);
    expect(await a.getWebhookRun('run_1')).toBeUndefined();
    expect(await a.deleteWebhookRun('run_1')).toBe(false);
  });
});
