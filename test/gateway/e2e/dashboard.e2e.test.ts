import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type QueueMode, startTestGateway, type TestGateway, waitFor } from './gateway-kit.js';
import { runsApi } from './runs-kit.js';

const KEY = 'k-dashboard-0123456789';
const TOKEN = 'dashboard-token-0123456789';
const modes: QueueMode[] = ['embedded', 'bullmq'];

function terminalCall(command: string) {
  return { content: '', toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command }) }] };
}

describe.each(modes)('the operator dashboard’s JSON (%s queue)', (mode) => {
  let fake: FakeOpenAi;
  let gw: TestGateway | undefined;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    await fake.close();
  });
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
    fake.reset();
  });

  it('shows a parked approval and its waiting session, and lets the operator approve it once', async () => {
    gw = await startTestGateway({
      mode,
      env: {
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'sk-test-key-0123456789',
        HERMES_MODEL: 'fake-model',
        API_SERVER_KEY: KEY,
        HERMES_DASHBOARD_TOKEN: TOKEN,
      },
      yaml: 'terminal:\n  unattended_backend: local',
    });
    const origin = gw.baseURL.replace(/\/v1$/, '');
    const ui = runsApi(`${origin}/ui/api`, TOKEN);
    mkdirSync(join(gw.workdir, 'build'));
    fake.script(terminalCall('rm -rf build'), { content: 'Removed.' });
    const runs = runsApi(gw.baseURL, KEY);
    const created = await runs.call('POST', '/runs', { input: 'remove build', attended: true });
    const runId = String(created.body['id']);

    // The API key is not the dashboard's token.
    expect((await runsApi(`${origin}/ui/api`, KEY).call('GET', '/overview')).status).toBe(401);
    let overview: Record<string, unknown> = {};
    await waitFor(async () => {
      overview = (await ui.call('GET', '/overview')).body;
      return Array.isArray(overview['approvals']) && overview['approvals'].length === 1;
    });
    const [approval] = overview['approvals'] as Array<Record<string, unknown>>;
    expect(approval).toMatchObject({ command: 'rm -rf build', platform: 'api_server' });
    expect(approval?.['why']).toEqual([expect.any(String)]);
    expect(Number(approval?.['expiresAt'])).toBeGreaterThan(Date.now());
    const sessions = overview['sessions'] as Array<Record<string, unknown>>;
    expect(sessions.find((s) => s['state'] === 'waiting_for_approval')).toMatchObject({
      platform: 'api_server',
    });
    expect(overview['queue']).toMatchObject({ pendingApprovals: 1 });
    const health = overview['health'] as Array<Record<string, unknown>>;
    expect(health.map((check) => check['name'])).toEqual(expect.arrayContaining(['store', 'queue', 'model']));

    const id = String(approval?.['id']);
    const decided = await ui.call('POST', `/approvals/${id}/decision`, { choice: 'once' });
    expect(decided).toMatchObject({ status: 200, body: { status: 'recorded' } });
    await waitFor(async () => (await runs.call('GET', `/runs/${runId}`)).body['status'] === 'done');
    expect(existsSync(join(gw.workdir, 'build'))).toBe(false);
    // Recorded as decided by the operator, in the same prompt table as the chat buttons.
    const prompt = await gw.gateway.store.findActionPromptByRequest(id);
    expect(prompt?.resolved).toMatchObject({ outcome: 'once', resolvedBy: 'operator' });
    // Decided once: a second decision finds nothing pending.
    expect((await ui.call('POST', `/approvals/${id}/decision`, { choice: 'deny' })).status).toBe(404);
    expect((await ui.call('GET', '/approvals')).body).toEqual({ approvals: [] });
    // The session's transcript: the user's message, the tool call and its result, the answer.
    const [session] = (await ui.call('GET', '/sessions')).body['sessions'] as Array<Record<string, unknown>>;
    const transcript = await ui.call(
      'GET',
      `/sessions/${encodeURIComponent(String(session?.['key']))}/transcript`,
    );
    expect(transcript.body['messages']).toEqual([
      expect.objectContaining({ role: 'user', text: 'remove build' }),
      expect.objectContaining({
        role: 'assistant',
        toolCalls: [expect.objectContaining({ name: 'terminal' })],
      }),
      expect.objectContaining({ role: 'tool', tool: 'terminal' }),
      expect.objectContaining({ role: 'assistant', text: 'Removed.' }),
    ]);
    expect((await ui.call('GET', '/sessions/agent%3Amain%3Aapi_server%3Adm%3Anone/transcript')).status).toBe(
      404,
    );
    // The turn figures are /metrics' counters: the parked turn, then its resumed answer.
    const turns = (await ui.call('GET', '/health')).body['turns'] as Record<string, unknown>;
    expect(turns['byOutcome']).toMatchObject({ parked: 1, final: 1 });
    expect(turns['modelRequests']).toBe(2);
    expect(Number(turns['meanTurnSeconds'])).toBeGreaterThan(0);
    // Rates and percentiles: the figures /metrics reports, from the same observations.
    const [oneMinute, fiveMinutes] = turns['recent'] as Array<Record<string, number | string | null>>;
    expect(oneMinute).toMatchObject({ window: '1m', turns: 2, perMinute: 2 });
    expect(fiveMinutes).toMatchObject({ window: '5m', turns: 2, perMinute: 0.4 });
    expect(Number(oneMinute?.['p50'])).toBeGreaterThan(0);
    const metrics = await (await fetch(`${origin}/metrics`)).text();
    expect(metrics).toContain('hermes_turns_per_minute{window="1m"} 2');
    expect(metrics).toContain(
      `hermes_turn_duration_recent_seconds{window="1m",quantile="0.5"} ${oneMinute?.['p50']}`,
    );
    expect(metrics).toMatch(/hermes_turn_duration_seconds_bucket\{le="0\.05"\} \d/);

    // A failed turn is listed under recent failures, from the store, with its code and words.
    expect((await ui.call('GET', '/failures')).body).toEqual({ turns: [], deliveries: [] });
    fake.script({ status: 400, error: 'the model refuses this request' });
    const failing = String((await runs.call('POST', '/runs', { input: 'fail please' })).body['id']);
    let run: Record<string, unknown> = {};
    await waitFor(async () => {
      run = (await runs.call('GET', `/runs/${failing}`)).body;
      return run['status'] === 'failed';
    });
    const failures = (await ui.call('GET', '/failures')).body;
    const runError = run['error'] as { code: string; message: string };
    expect(failures['turns']).toEqual([
      expect.objectContaining({ platform: 'api_server', code: runError.code, message: runError.message }),
    ]);
    expect(
      ((await ui.call('GET', '/overview')).body['failures'] as Record<string, unknown>)['turns'],
    ).toEqual(failures['turns']);
  }, 60_000);
});

describe('the operator dashboard’s decisions race like chat buttons', () => {
  let fake: FakeOpenAi;
  let gw: TestGateway | undefined;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    await gw?.close();
    await fake.close();
  });

  it('two operators deciding at once: exactly one decision is recorded, and a denial keeps the folder', async () => {
    gw = await startTestGateway({
      mode: 'embedded',
      env: {
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'sk-test-key-0123456789',
        HERMES_MODEL: 'fake-model',
        API_SERVER_KEY: KEY,
      },
      yaml: 'terminal:\n  unattended_backend: local',
    });
    const origin = gw.baseURL.replace(/\/v1$/, '');
    // No token: the test runs on loopback, so the dashboard answers it.
    const ui = runsApi(`${origin}/ui/api`);
    mkdirSync(join(gw.workdir, 'keep'));
    fake.script(terminalCall('rm -rf keep'), { content: 'Left it.' });
    const runs = runsApi(gw.baseURL, KEY);
    const runId = String(
      (await runs.call('POST', '/runs', { input: 'remove keep', attended: true })).body['id'],
    );
    let id = '';
    await waitFor(async () => {
      const list = (await ui.call('GET', '/approvals')).body['approvals'] as Array<Record<string, unknown>>;
      id = String(list[0]?.['id'] ?? '');
      return id !== '';
    });
    const answers = await Promise.all([
      ui.call('POST', `/approvals/${id}/decision`, { choice: 'deny' }),
      ui.call('POST', `/approvals/${id}/decision`, { choice: 'deny' }),
      ui.call('POST', `/approvals/${id}/decision`, { choice: 'deny' }),
    ]);
    expect(answers.filter((answer) => answer.body['status'] === 'recorded')).toHaveLength(1);
    expect(answers.every((answer) => [200, 404, 409].includes(answer.status))).toBe(true);
    await waitFor(async () => (await runs.call('GET', `/runs/${runId}`)).body['status'] === 'done');
    expect(existsSync(join(gw.workdir, 'keep'))).toBe(true);
    expect((await ui.call('POST', `/approvals/${id}/decision`, { choice: 'maybe' })).status).toBe(400);
  }, 60_000);
});
