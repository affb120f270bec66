import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { startTestGateway, type TestGateway, waitFor } from './gateway-kit.js';
import { runsApi } from './runs-kit.js';

const KEY = 'k-dashboard-0123456789';
const TOKEN = 'dashboard-token-0123456789';

/*
 * Scale-out (REDIS_URL): the gateway serving the dashboard runs no workers; a separate worker
 * process runs every turn. The dashboard still sees the turn running (Redis session lock), its
 * failure (store) and the outbox (store), none of which live in the serving process.
 */
describe('the operator dashboard with turns run by another process (BullMQ)', () => {
  let fake: FakeOpenAi;
  const started: TestGateway[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    await fake.close();
  });
  afterEach(async () => {
    // The worker first; the gateway owns the home and the Redis keys.
    for (const gw of started.splice(0).reverse()) await gw.close().catch(() => undefined);
    fake.reset();
  });

  it('shows a turn running in a worker, then idle, its failure, and the outbox of every platform', async () => {
    const env = {
      OPENAI_BASE_URL: fake.baseURL,
      OPENAI_API_KEY: 'sk-test-key-0123456789',
      HERMES_MODEL: 'fake-model',
      API_SERVER_KEY: KEY,
      HERMES_DASHBOARD_TOKEN: TOKEN,
    };
    const gateway = await startTestGateway({ mode: 'bullmq', env, workers: false });
    started.push(gateway);
    const worker = await startTestGateway({
      mode: 'bullmq',
      env,
      role: 'worker',
      home: gateway.home,
      workdir: gateway.workdir,
    });
    // Closing the worker must not remove the gateway's home: stop it only.
    started.push({ ...worker, close: () => worker.stop() });

    const origin = gateway.baseURL.replace(/\/v1$/, '');
    const ui = runsApi(`${origin}/ui/api`, TOKEN);
    const runs = runsApi(gateway.baseURL, KEY);
    const sessionState = async () => {
      const sessions = (await ui.call('GET', '/sessions')).body['sessions'] as Array<Record<string, unknown>>;
      // The only session so far (the API keeps a hash of the session id in the key).
      return sessions.find((session) => session['platform'] === 'api_server')?.['state'];
    };

    fake.script({ content: 'Took my time.', delayMs: 1500 });
    const slow = String(
      (await runs.call('POST', '/runs', { input: 'take your time', session_id: 'slow' })).body['id'],
    );
    await waitFor(async () => (await sessionState()) === 'running');
    expect(gateway.gateway.queue.activeTurns()).toBe(0);
    await waitFor(async () => (await runs.call('GET', `/runs/${slow}`)).body['status'] === 'done');
    await waitFor(async () => (await sessionState()) === 'idle');

    // The worker's failed turn reaches the dashboard through the store.
    fake.script({ status: 400, error: 'the model refuses this request' });
    const failing = String((await runs.call('POST', '/runs', { input: 'fail please' })).body['id']);
    await waitFor(async () => (await runs.call('GET', `/runs/${failing}`)).body['status'] === 'failed');
    // Operators only: neither no credentials nor the API key open them.
    for (const path of ['/failures', '/outbox']) {
      expect((await runsApi(`${origin}/ui/api`).call('GET', path)).status).toBe(401);
      expect((await runsApi(`${origin}/ui/api`, KEY).call('GET', path)).status).toBe(401);
    }
    const failures = (await ui.call('GET', '/failures')).body;
    expect(failures['turns']).toEqual([expect.objectContaining({ platform: 'api_server' })]);

    // The outbox of platforms this process does not run, pending and given up on.
    const entry = (id: string, platform: string) => ({
      id,
      platform,
      sessionKey: `agent:main:${platform}:dm:7`,
      turnId: id,
      origin: { platform, chatType: 'dm', chatId: '7' },
      kind: 'final' as const,
      text: 'an answer',
    });
    await worker.gateway.store.enqueueOutbox(entry('t-pending', 'telegram'));
    await worker.gateway.store.enqueueOutbox(entry('t-lost', 'discord'));
    await worker.gateway.store.markOutboxAttempt('t-lost');
    await worker.gateway.store.completeOutbox('t-lost', 'abandoned');
    const overview = (await ui.call('GET', '/overview')).body;
    expect(overview['outbox']).toEqual([
      expect.objectContaining({ platform: 'telegram', kind: 'final', chatId: '7', attempts: 0 }),
    ]);
    expect((overview['failures'] as Record<string, unknown>)['deliveries']).toEqual([
      expect.objectContaining({
        platform: 'discord',
        chatId: '7',
        attempts: 1,
        givenUpAt: expect.any(Number),
      }),
    ]);
  }, 60_000);
});
