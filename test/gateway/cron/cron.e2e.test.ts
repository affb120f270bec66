import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SqliteGatewayStore } from '../../../src/gateway/store/sqlite-gateway-store.js';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../../src/platforms/test-adapter/test-adapter-types.js';
import { type FakeOpenAi, type RecordedRequest, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type QueueMode, startTestGateway, type TestGateway, waitFor } from '../e2e/gateway-kit.js';

const ALICE = { chatId: 'c-alice', userId: 'alice', userName: 'Alice' };
const YAML = [
  'gateway:',
  '  allowed_users: ["test:alice"]',
  '  admin_users: ["test:alice"]',
  'cron:',
  '  min_interval_seconds: 1',
  '  timezone: UTC',
].join('\n');

/** What the fake model answers scheduled runs with in these tests. */
const RUN_ANSWERS = new Set(['tick', 'Home report.', 'Once.', 'Again.', 'Hourly.', 'Late but here.']);

/** The text of a request's last user message (a scheduled run's prompt). */
function lastUser(request: RecordedRequest): string {
  const messages = (request.body['messages'] ?? []) as { role: string; content: unknown }[];
  const user = messages.filter((m) => m.role === 'user').at(-1);
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
}

describe.each<QueueMode>(['embedded', 'bullmq'])('scheduled tasks (%s)', (mode) => {
  let fake: FakeOpenAi;
  const started: TestGateway[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    await fake.close();
  });
  afterEach(async () => {
    const [owner, ...others] = started.splice(0);
    for (const gw of others.reverse()) await gw.stop();
    await owner?.close();
    fake.reset();
  });

  async function start(
    options: { adapter?: TestAdapter; reuse?: TestGateway; role?: 'worker'; workers?: boolean } = {},
  ): Promise<TestGateway> {
    const gw = await startTestGateway({
      mode,
      env: {
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'sk-test-0123456789abcdef',
        HERMES_MODEL: 'fake-model',
      },
      yaml: YAML,
      ...(options.adapter !== undefined ? { adapters: [options.adapter] } : {}),
      ...(options.role !== undefined ? { role: options.role } : {}),
      ...(options.workers !== undefined ? { workers: options.workers } : {}),
      ...(options.reuse !== undefined ? { home: options.reuse.home, workdir: options.reuse.workdir } : {}),
    });
    if (options.reuse === undefined) started.unshift(gw);
    else started.push(gw);
    return gw;
  }

  async function stop(gw: TestGateway): Promise<void> {
    await gw.stop();
    const index = started.indexOf(gw);
    if (index > 0) started.splice(index, 1);
  }

  /** Sends a command and returns the reply it got (skipping answers of runs arriving meanwhile). */
  async function command(adapter: TestAdapter, text: string): Promise<string> {
    const before = adapter.texts(ALICE.chatId).length;
    const replies = () =>
      adapter
        .texts(ALICE.chatId)
        .slice(before)
        .filter((t) => !RUN_ANSWERS.has(t));
    await adapter.say({ ...ALICE, text });
    await waitFor(() => replies().length > 0);
    return replies()[0]!;
  }

  const runsOf = (prompt: string) => fake.requests.filter((r) => lastUser(r).includes(prompt));
  const idOf = (reply: string) => /Scheduled (\w+):/.exec(reply)?.[1] ?? '';

  it('the cronjob tool schedules a task; its run is an unattended turn delivered to the chat; /cron list shows it', async () => {
    const adapter = createTestAdapter();
    await start({ adapter });
    fake.script(
      {
        content: '',
        toolCalls: [
          {
            name: 'cronjob',
            arguments: JSON.stringify({
              action: 'create',
              schedule: 'in 2s',
              prompt: 'Write the daily sales report.',
            }),
          },
        ],
      },
      { content: 'Scheduled it.' },
    );
    fake.respond = (request) =>
      lastUser(request).includes('daily sales report')
        ? { content: 'Sales report: 42 orders.' }
        : { content: '?' };
    await adapter.say({ ...ALICE, text: 'send me the sales report in a moment' });
    await waitFor(() => adapter.texts(ALICE.chatId).includes('Scheduled it.'));
    const created = JSON.parse(
      String(((fake.requests[1]?.body['messages'] ?? []) as { content: string }[]).at(-1)?.content),
    );
    expect(created.created).toMatchObject({ schedule: 'in 2s', state: 'active', deliver: 'origin' });

    await waitFor(() => adapter.texts(ALICE.chatId).includes('Sales report: 42 orders.'));
    const [run] = runsOf('daily sales report');
    expect(run).toBeDefined();
    // Unattended: the run is not offered the cronjob tool (nor clarify's human).
    const tools = ((run?.body['tools'] ?? []) as { function: { name: string } }[]).map(
      (t) => t.function.name,
    );
    expect(tools).not.toContain('cronjob');
    expect(tools).toContain('terminal');
    const list = await command(adapter, '/cron list');
    expect(list).toContain(created.created.job_id);
    expect(list).toMatch(/done \(was due once\)/);
    await waitFor(async () => (await command(adapter, '/cron')).includes('— delivered'));
  });

  it('/cron add, pause and resume: no runs while paused, runs again after resume', async () => {
    const adapter = createTestAdapter();
    await start({ adapter });
    fake.respond = () => ({ content: 'tick' });
    const reply = await command(adapter, '/cron add every 1s | Say tick.');
    expect(reply).toMatch(/^Scheduled \w+: every 1s \(UTC\), to this chat/);
    const id = idOf(reply);
    await waitFor(() => runsOf('Say tick.').length >= 2);
    expect(await command(adapter, `/cron pause ${id}`)).toBe(`Paused ${id}.`);
    await new Promise((r) => setTimeout(r, 1_000));
    const paused = runsOf('Say tick.').length;
    await new Promise((r) => setTimeout(r, 2_500));
    expect(runsOf('Say tick.').length).toBe(paused);
    expect(await command(adapter, '/cron')).toContain('paused');
    expect(await command(adapter, `/cron resume ${id}`)).toMatch(new RegExp(`^Resumed ${id}; next run`));
    await waitFor(() => runsOf('Say tick.').length >= paused + 1);
    expect(await command(adapter, `/cron delete ${id}`)).toBe(`Deleted ${id}.`);
    // Without "|": five cron fields, then the prompt; a time zone of its own.
    const morning = await command(adapter, '/cron add --tz Asia/Tokyo 0 9 * * * Write the morning note.');
    expect(morning).toMatch(
      /^Scheduled \w+: 0 9 \* \* \* \(Asia\/Tokyo\), to this chat; first run \S+ 09:00 Asia\/Tokyo/,
    );
    expect(await command(adapter, '/cron add every soon | x')).toMatch(
      /^Could not do that: "every soon": write an interval/,
    );
    expect(await command(adapter, `/cron delete ${idOf(morning)}`)).toBe(`Deleted ${idOf(morning)}.`);
    expect(await command(adapter, '/cron')).toMatch(/^No scheduled tasks in this chat/);
  });

  it('a task for the home channel with none set is recorded as failed with the reason; after /sethome it is delivered there', async () => {
    const adapter = createTestAdapter();
    const gw = await start({ adapter });
    fake.respond = () => ({ content: 'Home report.' });
    // Hourly: after /sethome the missed run is run again at once, not an hour later.
    const id = idOf(await command(adapter, '/cron add --home every 1h | Write the home report.'));
    await waitFor(async () => (await gw.gateway.store.getCronJob(id))?.delivery?.status === 'failed');
    expect(runsOf('Write the home report.')).toHaveLength(0);
    const list = await command(adapter, '/cron list');
    expect(list).toContain(`⚠️ FAILED: no home channel is set for test: send /sethome`);
    expect((await gw.gateway.cron.failures()).map((job) => job.id)).toEqual([id]);

    await adapter.say({
      chatId: 'c-home',
      userId: 'alice',
      userName: 'Alice',
      text: '/sethome',
    });
    await waitFor(() => adapter.texts('c-home').includes('Home report.'), 10_000);
    expect(adapter.texts('c-home').some((t) => t.includes('had nowhere to deliver runs again now'))).toBe(
      true,
    );
    expect(runsOf('Write the home report.')).toHaveLength(1);
    await waitFor(async () => (await gw.gateway.store.getCronJob(id))?.delivery?.status === 'delivered');
  });

  it('a failed send is recorded with the reason and delivered by the outbox sweep', async () => {
    const adapter = createTestAdapter();
    const gw = await start({ adapter });
    fake.respond = () => ({ content: 'Outbox report.' });
    const id = idOf(await command(adapter, '/cron add in 1s | Write the outbox report.'));
    adapter.failNext({ code: 'forbidden', times: 20 });
    await waitFor(async () => (await gw.gateway.store.getCronJob(id))?.delivery?.status === 'failed');
    expect((await gw.gateway.store.getCronJob(id))?.delivery?.error).toMatch(
      /could not be sent \(retried from the outbox\)/,
    );
    expect(adapter.texts(ALICE.chatId)).not.toContain('Outbox report.');
    expect((await gw.gateway.store.listOutbox({ platform: 'test' })).length).toBe(1);

    adapter.clearFailures();
    await gw.gateway.control?.sweepOutbox({ minAgeMs: 0 });
    expect(adapter.texts(ALICE.chatId).filter((t) => t === 'Outbox report.')).toHaveLength(1);
    expect((await gw.gateway.store.getCronJob(id))?.delivery?.status).toBe('delivered');
  });

  it('a gateway stopped across a due run runs it once when it comes back', async () => {
    const adapter = createTestAdapter();
    const first = await start({ adapter });
    fake.respond = () => ({ content: 'Late but here.' });
    const id = idOf(await command(adapter, '/cron add in 2s | Write the late report.'));
    await stop(first);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(runsOf('Write the late report.')).toHaveLength(0);

    const back = createTestAdapter();
    const again = await start({ adapter: back, reuse: first });
    await waitFor(() => back.texts(ALICE.chatId).includes('Late but here.'));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(runsOf('Write the late report.')).toHaveLength(1);
    expect(await again.gateway.store.getCronJob(id)).toMatchObject({ state: 'done', runCount: 1 });
  });

  it.runIf(mode === 'embedded')(
    'runs missed while the gateway was down run once, not once each',
    async () => {
      const adapter = createTestAdapter();
      const first = await start({ adapter });
      fake.respond = () => ({ content: 'Hourly.' });
      const id = idOf(await command(adapter, '/cron add every 1h | Write the hourly report.'));
      await waitFor(() => runsOf('Write the hourly report.').length === 1);
      await stop(first);
      // Five hours pass while the gateway is down (its workers start once the clock is moved).
      const now = Date.now();
      const back = createTestAdapter();
      const again = await start({ adapter: back, reuse: first, workers: false });
      (again.gateway.store as SqliteGatewayStore).db
        .prepare('UPDATE cron_jobs SET next_run_at = ?, last_run_at = ? WHERE id = ?')
        .run(now - 4 * 3_600_000, now - 5 * 3_600_000, id);
      await again.gateway.startWorkers();
      await waitFor(() => runsOf('Write the hourly report.').length === 2);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(runsOf('Write the hourly report.')).toHaveLength(2);
      expect((await again.gateway.store.getCronJob(id))?.nextRunAt).toBeGreaterThan(Date.now());
    },
  );

  it.runIf(mode === 'bullmq')('three workers run each due time once', async () => {
    const adapter = createTestAdapter();
    const gw = await start({ adapter });
    await start({ role: 'worker', reuse: gw });
    await start({ role: 'worker', reuse: gw });
    fake.respond = (request) => ({ content: lastUser(request).includes('once') ? 'Once.' : 'Again.' });
    await command(adapter, '/cron add in 2s | Run this once.');
    const id = idOf(await command(adapter, '/cron add every 1s | Run this again.'));
    await waitFor(() => adapter.texts(ALICE.chatId).includes('Once.'));
    await waitFor(() => runsOf('Run this again.').length >= 4);
    await command(adapter, `/cron pause ${id}`);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(runsOf('Run this once.')).toHaveLength(1);
    const job = await gw.gateway.store.getCronJob(id);
    expect(runsOf('Run this again.')).toHaveLength(job?.runCount ?? -1);
    const claims = (gw.gateway.store as SqliteGatewayStore).db
      .prepare('SELECT due_at FROM cron_runs WHERE job_id = ?')
      .all(id);
    expect(claims).toHaveLength(job?.runCount ?? -1);
    await waitFor(() => adapter.texts(ALICE.chatId).filter((t) => t === 'Again.').length === job?.runCount);
    expect(adapter.texts(ALICE.chatId).filter((t) => t === 'Once.')).toHaveLength(1);
  });
});
