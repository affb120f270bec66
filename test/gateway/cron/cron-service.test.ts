import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CronService,
  createCronService,
  cronSessionKey,
} from '../../../src/gateway/cron/cron-service.js';
import { describeCronJob } from '../../../src/gateway/cron/describe-cron-job.js';
import {
  createLocalCronScheduler,
  type LocalCronScheduler,
} from '../../../src/gateway/cron/local-cron-scheduler.js';
import { createTurnQueue } from '../../../src/gateway/queue/create-turn-queue.js';
import type { InboxItem, TurnQueue } from '../../../src/gateway/queue/turn-queue.js';
import type { CronChat } from '../../../src/gateway/store/cron-store.js';
import {
  createSqliteGatewayStore,
  type SqliteGatewayStore,
} from '../../../src/gateway/store/sqlite-gateway-store.js';
import { makeTempHome, silentLogger } from '../../helpers/test-config.js';
import { waitFor } from '../e2e/gateway-kit.js';

const T0 = Date.parse('2026-12-02T10:00:00Z');
const HOUR = 3_600_000;
const CHAT: CronChat = { platform: 'test', chatType: 'dm', chatId: 'c-alice' };
const CHAT_SESSION = 'agent:main:test:dm:c-alice';

/** A scheduled-task service on a real store and a real embedded turn queue, on a clock the test moves. */
describe('scheduled tasks on a fake clock (embedded scheduler)', () => {
  let home: ReturnType<typeof makeTempHome>;
  let store: SqliteGatewayStore;
  let queue: TurnQueue;
  let clock: number;
  let turns: InboxItem[];
  let cron: CronService;
  const schedulers: LocalCronScheduler[] = [];

  function scheduler(): LocalCronScheduler {
    const made = createLocalCronScheduler({
      store,
      fire: (jobId, dueAt) => cron.fire(jobId, dueAt),
      logger: silentLogger,
      now: () => clock,
      tickMs: 3_600_000,
    });
    schedulers.push(made);
    return made;
  }

  beforeEach(async () => {
    home = makeTempHome('hermes-cron-');
    clock = T0;
    turns = [];
    store = createSqliteGatewayStore({
      path: join(home.home, 'state.db'),
      logger: silentLogger,
      now: () => clock,
    });
    queue = createTurnQueue({ logger: silentLogger });
    await queue.startWorkers(
      async (turn) => {
        turns.push(...turn.items);
      },
      { concurrency: 4, onFailed: () => undefined },
    );
    cron = createCronService(
      {
        store,
        submit: (item) => queue.submit(item),
        settings: { timezone: 'UTC', minIntervalMs: 60_000, maxJobsPerChat: 3 },
        logger: silentLogger,
        now: () => clock,
      },
      () => undefined,
    );
  });
  afterEach(async () => {
    for (const made of schedulers.splice(0)) await made.close();
    await queue.close({ graceMs: 0 });
    await store.close();
    home.cleanup();
  });

  const create = (schedule: string, extra: { deliver?: 'origin' | 'home'; timezone?: string } = {}) =>
    cron.create({
      chat: CHAT,
      sessionKey: CHAT_SESSION,
      userId: 'alice',
      userName: 'Alice',
      schedule,
      prompt: 'Report the weather.',
      ...extra,
    });

  /** Ticks and waits until the queue has handed over `count` runs in all. */
  async function tickExpecting(made: LocalCronScheduler, count: number): Promise<void> {
    await made.tick();
    await waitFor(() => turns.length >= count, 5_000);
    await new Promise((r) => setTimeout(r, 30));
    expect(turns).toHaveLength(count);
  }

  it('fires each due run once, as an unattended turn of the job session addressed to the chat', async () => {
    await store.updateSession(CHAT_SESSION, { toolsetOverrides: ['hermes-test', 'web'] });
    const job = await create('every 1h');
    const made = scheduler();
    await tickExpecting(made, 1);
    const [run] = turns;
    expect(run).toMatchObject({
      sessionKey: cronSessionKey(job),
      eventId: `cron:${job.id}:${T0}`,
      kind: 'message',
      solo: true,
      payload: { platform: 'test', chatType: 'dm', chatId: 'c-alice', userId: 'alice', unattended: true },
    });
    expect(run?.text).toContain('Report the weather.');
    expect((await store.getSession(cronSessionKey(job)))?.toolsetOverrides).toEqual(['hermes-test', 'web']);

    clock = T0 + HOUR / 2;
    await tickExpecting(made, 1);
    // A scheduler that offers a time before the stored next run (BullMQ on resume) is told to wait.
    expect(await cron.fire(job.id, T0 + HOUR / 2)).toBe('not_due');
    clock = T0 + HOUR;
    await tickExpecting(made, 2);
    expect(await store.getCronJob(job.id)).toMatchObject({
      runCount: 2,
      nextRunAt: T0 + 2 * HOUR,
      lastDueAt: T0 + HOUR,
    });
    expect((await store.getCronJob(job.id))?.delivery?.status).toBe('pending');
  });

  it('pause stops the runs, resume starts them again from now', async () => {
    const job = await create('every 1h');
    const made = scheduler();
    await tickExpecting(made, 1);
    expect((await cron.pause(CHAT, job.id)).state).toBe('paused');
    clock = T0 + 3 * HOUR;
    await tickExpecting(made, 1);
    expect(describeCronJob((await store.getCronJob(job.id))!)).toContain('paused');
    const resumed = await cron.resume(CHAT, job.id);
    expect(resumed).toMatchObject({ state: 'active', nextRunAt: T0 + 4 * HOUR });
    await tickExpecting(made, 1);
    clock = T0 + 4 * HOUR;
    await tickExpecting(made, 2);
    await expect(cron.pause({ ...CHAT, chatId: 'someone-else' }, job.id)).rejects.toThrow(
      /no scheduled task/,
    );
    expect((await cron.remove(CHAT, job.id)).id).toBe(job.id);
    expect(await cron.list(CHAT)).toEqual([]);
  });

  it('a restart after missed runs runs the job once, and two schedulers at the same moment run it once', async () => {
    const job = await create('0 9 * * *');
    expect(job.nextRunAt).toBe(Date.parse('2026-12-03T09:00:00Z'));
    // Down for three days: the 09:00 runs of the 3rd, 4th and 5th were missed.
    clock = Date.parse('2026-12-05T12:00:00Z');
    const [first, second] = [scheduler(), scheduler()];
    await Promise.all([first.tick(), second.tick(), first.tick()]);
    await tickExpecting(first, 1);
    expect(await store.getCronJob(job.id)).toMatchObject({
      runCount: 1,
      lastDueAt: Date.parse('2026-12-03T09:00:00Z'),
      nextRunAt: Date.parse('2026-12-06T09:00:00Z'),
    });
    // The due time is claimed: no other process can claim it again.
    expect(await store.claimCronRun(job.id, Date.parse('2026-12-03T09:00:00Z'))).toBe(false);
    // A late copy of that run (another worker's) is before the stored next run: it waits.
    expect(await cron.fire(job.id, Date.parse('2026-12-03T09:00:00Z'))).toBe('not_due');
    // A scheduler catching up on the missed times (BullMQ's interval schedulers may) is skipped:
    // it would come too soon after the run that just happened.
    await store.updateCronJob(job.id, { nextRunAt: Date.parse('2026-12-04T09:00:00Z') });
    expect(await cron.fire(job.id, Date.parse('2026-12-04T09:00:00Z'))).toBe('catch_up_skipped');
    expect((await store.getCronJob(job.id))?.nextRunAt).toBe(Date.parse('2026-12-06T09:00:00Z'));
    clock = Date.parse('2026-12-06T09:00:00Z');
    await tickExpecting(second, 2);
  });

  it('a run whose home channel is not set is recorded as failed with the reason, and runs once one is set', async () => {
    const job = await create('every 1h', { deliver: 'home' });
    const made = scheduler();
    await made.tick();
    await new Promise((r) => setTimeout(r, 50));
    expect(turns).toHaveLength(0);
    const failed = await store.getCronJob(job.id);
    expect(failed?.delivery).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/no home channel is set for test/),
    });
    expect(describeCronJob(failed!)).toMatch(/FAILED: no home channel is set for test: send \/sethome/);
    expect((await store.listCronJobs({ failedOnly: true })).map((j) => j.id)).toEqual([job.id]);

    await store.setHomeChannel({ platform: 'test', chatId: 'c-home', setBy: 'alice' });
    clock = T0 + HOUR;
    await tickExpecting(made, 1);
    expect(turns[0]?.payload).toMatchObject({ chatId: 'c-home', chatType: 'group', unattended: true });
  });

  it('a run that found no home channel runs again once when one is set, not at its next time only', async () => {
    const job = await create('every 1d', { deliver: 'home' });
    const made = scheduler();
    await made.tick();
    await new Promise((r) => setTimeout(r, 50));
    expect(turns).toHaveLength(0);
    // Nothing to retry while there is still no target, and nothing for another platform.
    expect(await cron.retryUndelivered('test')).toBe(0);
    await store.setHomeChannel({ platform: 'test', chatId: 'c-home', setBy: 'alice' });
    expect(await cron.retryUndelivered('other')).toBe(0);
    // Two /sethome in a row (or in two processes): one retry of that due time.
    const counts = await Promise.all([cron.retryUndelivered('test'), cron.retryUndelivered('test')]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
    await waitFor(() => turns.length === 1, 5_000);
    expect(turns[0]?.payload).toMatchObject({ chatId: 'c-home', unattended: true });
    expect(turns[0]?.eventId).toMatch(new RegExp(`^cron:${job.id}:\\d+:retry$`));
    expect((await store.getCronJob(job.id))?.delivery?.status).toBe('pending');
    expect(await cron.retryUndelivered('test')).toBe(0);
  });

  it('records how the answer was delivered, from the chat platform side', async () => {
    const job = await create('in 5m');
    const session = cronSessionKey(job);
    await cron.noteDelivery({
      sessionKey: session,
      kind: 'final',
      delivered: false,
      error: 'chat not found',
    });
    expect((await store.getCronJob(job.id))?.delivery).toMatchObject({
      status: 'failed',
      error: 'the answer could not be sent (retried from the outbox): chat not found',
    });
    await cron.noteDelivery({ sessionKey: session, kind: 'final', delivered: true });
    expect((await store.getCronJob(job.id))?.delivery?.status).toBe('delivered');
    await cron.noteDelivery({ sessionKey: CHAT_SESSION, kind: 'final', delivered: false });
    expect((await store.getCronJob(job.id))?.delivery?.status).toBe('delivered');
    // A one-shot runs once and is done.
    clock = T0 + 5 * 60_000;
    await tickExpecting(scheduler(), 1);
    expect(await store.getCronJob(job.id)).toMatchObject({ state: 'done', nextRunAt: undefined });
  });

  it('refuses tasks from scheduled runs, beyond the per-chat limit, and in unknown zones', async () => {
    await expect(
      cron.create({
        chat: CHAT,
        sessionKey: 'agent:cron:test:dm:abc',
        userId: 'alice',
        schedule: 'every 1h',
        prompt: 'x',
      }),
    ).rejects.toThrow(/cannot schedule further tasks/);
    await expect(create('every 1h', { timezone: 'Nowhere/Else' })).rejects.toThrow(/unknown time zone/);
    for (let i = 0; i < 3; i += 1) await create('every 1h');
    await expect(create('every 1h')).rejects.toThrow(/3 scheduled tasks already/);
  });
});
