import { afterEach, describe, expect, it } from 'vitest';
import type { CronJobInput } from '../../../src/gateway/store/gateway-store.js';
import { storeBackends } from './store-backends.js';
import { manualClock } from './store-fixture.js';

/*
 * Store conformance, part 3: clarify answers kept with the resolution, webhook run records with
 * their delivery lease, scheduled tasks and their run claims — the same cases for every backend,
 * the "exactly one caller wins" operations raced against themselves.
 */

const KEY = 'agent:main:telegram:dm:42';

function job(overrides: Partial<CronJobInput> = {}): CronJobInput {
  return {
    id: 'job1',
    chat: { platform: 'telegram', chatType: 'dm', chatId: '42' },
    sessionKey: KEY,
    createdBy: 'u1',
    prompt: 'Write the daily report.',
    schedule: '0 9 * * *',
    scheduleKind: 'cron',
    scheduleValue: '0 9 * * *',
    timezone: 'Europe/Berlin',
    deliver: 'origin',
    nextRunAt: 5_000,
    ...overrides,
  };
}

for (const backend of storeBackends()) {
  describe.skipIf(backend.skip !== undefined)(
    `gateway store conformance (${backend.name}${backend.skip ? `: skipped, ${backend.skip}` : ''}): runs and schedules`,
    () => {
      afterEach(() => backend.cleanup());

      it('keeps a clarify answer with the resolution, and only the first resolution', async () => {
        const store = await backend.open(manualClock());
        await store.saveActionPrompt({
          promptId: 'c1',
          kind: 'clarify',
          platform: 'telegram',
          chatId: '42',
          messageId: '7',
          sessionKey: KEY,
          turnId: 't1',
          parkId: 'park1',
          choices: ['main', 'dev'],
        });
        const results = await Promise.all(
          ['dev', 'main', 'other'].map((answer) =>
            store.resolveActionPrompt('c1', { outcome: 'answered', resolvedBy: 'u1', answer }),
          ),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        const resolved = (await store.getActionPrompt('c1'))?.resolved;
        expect(resolved?.outcome).toBe('answered');
        expect(['dev', 'main', 'other']).toContain(resolved?.answer);
      });

      it('records webhook runs, finds them by event, patches them, and leases delivery to one caller', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        const input = {
          runId: 'run1',
          route: 'deploys',
          deliveryId: 'd1',
          sessionKey: KEY,
          eventId: 'webhook:deploys:d1',
        };
        await store.saveWebhookRun(input);
        await store.saveWebhookRun({ ...input, route: 'ignored' });
        const saved = await store.getWebhookRun('run1');
        expect(saved).toMatchObject({ route: 'deploys', status: 'queued', delivery: { status: 'pending' } });
        expect((await store.findWebhookRunByEvent('webhook:deploys:d1'))?.runId).toBe('run1');
        expect(await store.updateWebhookRun('run1', { status: 'done', result: 'all green' })).toBe(true);
        expect(await store.updateWebhookRun('nope', { status: 'done' })).toBe(false);

        const leases = await Promise.all(
          Array.from({ length: 6 }, () => store.claimWebhookDelivery('run1', clock.now() + 1000)),
        );
        expect(leases.filter(Boolean)).toHaveLength(1);
        clock.advance(1001);
        // An expired lease is taken again (its holder died)…
        expect(await store.claimWebhookDelivery('run1', clock.now() + 1000)).toBe(true);
        // …and a delivered run is never leased again.
        await store.updateWebhookRun('run1', { delivery: { status: 'delivered', attempts: 1 } });
        clock.advance(2000);
        expect(await store.claimWebhookDelivery('run1', clock.now() + 1000)).toBe(false);
        expect(await store.getWebhookRun('run1')).toMatchObject({
          status: 'done',
          result: 'all green',
          delivery: { status: 'delivered', attempts: 1 },
        });

        await store.saveWebhookRun({ ...input, runId: 'run2', eventId: 'webhook:deploys:d2' });
        expect(await store.deleteWebhookRun('run2')).toBe(true);
        expect(await store.getWebhookRun('run2')).toBeUndefined();
        clock.advance(10_000);
        expect(await store.pruneWebhookRuns(clock.now())).toBe(1);
        expect(await store.getWebhookRun('run1')).toBeUndefined();
      });

      it('stores scheduled tasks per chat, patches them, and claims each due time once', async () => {
        const clock = manualClock();
        const store = await backend.open(clock);
        const created = await store.createCronJob(job());
        expect(created).toMatchObject({ id: 'job1', state: 'active', runCount: 0, delivery: undefined });
        await expect(store.createCronJob(job())).rejects.toMatchObject({ code: 'store_failed' });
        await store.createCronJob(
          job({ id: 'job2', chat: { platform: 'telegram', chatType: 'dm', chatId: '43' } }),
        );
        const chat = { platform: 'telegram', chatType: 'dm', chatId: '42' };
        expect((await store.listCronJobs({ chat })).map((j) => j.id)).toEqual(['job1']);
        expect(await store.listCronJobs()).toHaveLength(2);

        const claims = await Promise.all(Array.from({ length: 6 }, () => store.claimCronRun('job1', 5_000)));
        expect(claims.filter(Boolean)).toHaveLength(1);
        expect(await store.claimCronRun('job1', 6_000)).toBe(true);

        const patched = await store.updateCronJob('job1', {
          addRuns: 1,
          lastDueAt: 5_000,
          nextRunAt: null,
          state: 'paused',
          delivery: { status: 'failed', error: 'no home channel', at: 5_100 },
        });
        expect(patched).toMatchObject({
          runCount: 1,
          lastDueAt: 5_000,
          nextRunAt: undefined,
          state: 'paused',
          delivery: { status: 'failed', error: 'no home channel', at: 5_100 },
        });
        expect((await store.listCronJobs({ failedOnly: true })).map((j) => j.id)).toEqual(['job1']);
        expect(await store.updateCronJob('nope', { state: 'active' })).toBeUndefined();
        expect(await store.deleteCronJob('job1')).toBe(true);
        expect(await store.deleteCronJob('job1')).toBe(false);
        expect(await store.getCronJob('job1')).toBeUndefined();
      });
    },
  );
}
