import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import {
  type QueueMode,
  spawnCliWorker,
  startTestGateway,
  type TestGateway,
  waitFor,
} from './gateway-kit.js';
import { runsApi } from './runs-kit.js';

function terminalCall(command: string) {
  return { content: '', toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command }) }] };
}

function clarifyCall(question: string, choices: string[]) {
  return { content: '', toolCalls: [{ name: 'clarify', arguments: JSON.stringify({ question, choices }) }] };
}

const modes: QueueMode[] = ['embedded', 'bullmq'];

describe.each(modes)('the Runs API (%s queue)', (mode) => {
  let fake: FakeOpenAi;
  let gw: TestGateway | undefined;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    await fake.close();
  });
  afterEach(async () => {
    child?.kill('SIGKILL');
    child = undefined;
    await gw?.close();
    gw = undefined;
    fake.reset();
    fake.respond = () => ({ content: 'ok' });
  });

  const env = () => ({
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_API_KEY: 'sk-test-key-0123456789',
    HERMES_MODEL: 'fake-model',
  });

  async function start(
    options: {
      env?: Record<string, string>;
      yaml?: string;
      workers?: boolean;
      sweepIntervalMs?: number;
    } = {},
  ): Promise<TestGateway> {
    gw = await startTestGateway({
      mode,
      env: { ...env(), ...options.env },
      // Commands run on the machine (as a chat's do), so the test can see what ran.
      yaml: ['terminal:', '  unattended_backend: local', options.yaml ?? ''].join('\n'),
      ...(options.workers !== undefined ? { workers: options.workers } : {}),
      ...(options.sweepIntervalMs !== undefined ? { sweepIntervalMs: options.sweepIntervalMs } : {}),
    });
    return gw;
  }

  async function waitForStatus(
    api: ReturnType<typeof runsApi>,
    id: string,
    status: string,
    timeoutMs?: number,
  ) {
    let last: Record<string, unknown> = {};
    await waitFor(async () => {
      last = (await api.call('GET', `/runs/${id}`)).body;
      return last['status'] === status;
    }, timeoutMs);
    return last;
  }

  it('asks an attended run, lets one of two answering clients win, and finishes the turn', async () => {
    const { baseURL, workdir } = await start();
    mkdirSync(join(workdir, 'build'));
    fake.script(terminalCall('rm -rf build'), { content: 'Finished.' });
    const api = runsApi(baseURL);
    const created = await api.call('POST', '/runs', { input: 'remove the build folder', attended: true });
    expect(created.status).toBe(202);
    const id = String(created.body['id']);
    expect(id).toMatch(/^run_/);

    const waiting = await waitForStatus(api, id, 'waiting_for_approval');
    const pending = waiting['pending'] as Record<string, unknown>;
    expect(pending).toMatchObject({ type: 'approval', command: 'rm -rf build' });
    expect(String(pending['why'])).not.toBe('');
    expect(pending['choices']).toContain('once');
    expect(Date.parse(String(pending['expires_at']))).toBeGreaterThan(Date.now());
    expect(existsSync(join(workdir, 'build'))).toBe(true);

    // Two clients answer at once: the gate takes the first decision, the other is refused.
    const [a, b] = await Promise.all([
      api.call('POST', `/runs/${id}/approval`, { choice: 'once', id: pending['id'] }),
      api.call('POST', `/runs/${id}/approval`, { choice: 'deny', id: pending['id'] }),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    const winner = a.status === 200 ? 'once' : 'deny';
    const loser = a.status === 200 ? b : a;
    expect((loser.body['error'] as Record<string, unknown>)['code']).toMatch(
      /already_decided|no_pending_prompt/,
    );

    const done = await waitForStatus(api, id, 'done');
    expect(done['output']).toBe('Finished.');
    expect(existsSync(join(workdir, 'build'))).toBe(winner === 'deny');

    const stream = await api.events(id);
    expect(stream.closedByServer).toBe(true);
    const kinds = stream.events.map((event) => event.event);
    expect(kinds).toContain('approval_requested');
    expect(kinds.at(-1)).toBe('done');
    const resolved = stream.events.find((event) => event.event === 'approval_resolved');
    expect(resolved?.data).toMatchObject({ id: pending['id'], outcome: winner });
    expect(stream.events.map((event) => event.id)).toEqual(stream.events.map((_, index) => index + 1));
    // A late answer changes nothing.
    const late = await api.call('POST', `/runs/${id}/approval`, { choice: 'once' });
    expect(late.status).toBe(409);
  });

  it('resumes an interrupted event stream from Last-Event-ID without gaps or repeats', async () => {
    const { baseURL, workdir } = await start();
    mkdirSync(join(workdir, 'build'));
    fake.script(terminalCall('rm -rf build'), { content: 'All cleaned up after approval.' });
    const api = runsApi(baseURL);
    const { body } = await api.call('POST', '/runs', { input: 'clean up', attended: true });
    const id = String(body['id']);

    // A client follows the run, and its connection drops once the approval is asked.
    const first = await api.events(id, { stopWhen: (event) => event.event === 'approval_requested' });
    expect(first.closedByServer).toBe(false);
    const lastSeen = first.events.at(-1)?.id ?? 0;
    expect(lastSeen).toBeGreaterThan(0);

    const pending = (await api.call('GET', `/runs/${id}`)).body['pending'] as Record<string, unknown>;
    expect((await api.call('POST', `/runs/${id}/approval`, { choice: 'once' })).status).toBe(200);

    // It reconnects with the id it saw last: the rest, from the next id, and the stream ends.
    const rest = await api.events(id, { lastEventId: lastSeen });
    expect(rest.closedByServer).toBe(true);
    expect(rest.events[0]?.id).toBe(lastSeen + 1);
    expect(rest.events.map((event) => event.event)).toContain('approval_resolved');
    expect(rest.events.at(-1)).toMatchObject({
      event: 'done',
      data: { output: 'All cleaned up after approval.' },
    });

    // A late subscriber gets everything from the start; together the two halves are the whole.
    const whole = await api.events(id);
    expect([...first.events, ...rest.events]).toEqual(whole.events);
    expect(whole.events[0]?.id).toBe(1);
    expect(pending['type']).toBe('approval');
  });

  it('returns the same run for a retried POST with the same Idempotency-Key', async () => {
    const { baseURL } = await start();
    fake.script({ content: 'Once only.', delayMs: 300 });
    const api = runsApi(baseURL);
    const headers = { 'idempotency-key': `retry-${mode}-1` };
    const first = await api.call('POST', '/runs', { input: 'hello' }, headers);
    const again = await api.call('POST', '/runs', { input: 'hello' }, headers);
    expect(first.status).toBe(202);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body['id']).toBe(first.body['id']);
    const other = await api.call(
      'POST',
      '/runs',
      { input: 'hello' },
      { 'idempotency-key': `retry-${mode}-2` },
    );
    expect(other.body['id']).not.toBe(first.body['id']);
    await waitForStatus(api, String(first.body['id']), 'done');
    await waitForStatus(api, String(other.body['id']), 'done');
    const third = await api.call('POST', '/runs', { input: 'hello' }, headers);
    expect(third.body).toMatchObject({ id: first.body['id'], status: 'done', output: 'Once only.' });
    // Two distinct runs reached the model; the retry did not.
    expect(fake.requests).toHaveLength(2);
  });

  it('asks a question in an attended run and continues with the answer', async () => {
    const { baseURL } = await start();
    fake.script(clarifyCall('Which branch?', ['main', 'dev']), { content: 'Using dev.' });
    const api = runsApi(baseURL);
    const { body } = await api.call('POST', '/runs', {
      input: [{ role: 'user', content: 'deploy it' }],
      attended: true,
      session_id: `deploy-${mode}`,
    });
    const id = String(body['id']);
    expect(body['session_id']).toBe(`deploy-${mode}`);
    const waiting = await waitForStatus(api, id, 'waiting_for_input');
    expect(waiting['pending']).toMatchObject({
      type: 'clarify',
      question: 'Which branch?',
      choices: ['main', 'dev'],
    });
    expect((await api.call('POST', `/runs/${id}/approval`, { choice: 'once' })).status).toBe(409);
    expect((await api.call('POST', `/runs/${id}/clarify`, { answer: 'dev' })).status).toBe(200);
    const done = await waitForStatus(api, id, 'done');
    expect(done['output']).toBe('Using dev.');
    const second = fake.requests[1]?.body as { messages?: { role: string; content: string }[] } | undefined;
    const toolResult = second?.messages?.find((message) => message.role === 'tool');
    expect(toolResult?.content).toContain('dev');
    const kinds = (await api.events(id)).events.map((event) => event.event);
    expect(kinds).toEqual(expect.arrayContaining(['clarify_asked', 'clarify_answered', 'done']));
  });

  it('keeps a run without "attended" unattended: nothing is asked and clarify is not offered', async () => {
    const { baseURL, workdir } = await start();
    mkdirSync(join(workdir, 'build'));
    fake.script(terminalCall('rm -rf build'), { content: 'Could not remove it.' });
    const api = runsApi(baseURL);
    const { body } = await api.call('POST', '/runs', { input: 'remove build' });
    const done = await waitForStatus(api, String(body['id']), 'done');
    expect(done['output']).toBe('Could not remove it.');
    expect(existsSync(join(workdir, 'build'))).toBe(true);
    const first = fake.requests[0]?.body as { tools?: { function: { name: string } }[] } | undefined;
    const tools = (first?.tools ?? []).map((tool) => tool.function.name);
    expect(tools).toContain('terminal');
    expect(tools).not.toContain('clarify');
    const kinds = (await api.events(String(body['id']))).events.map((event) => event.event);
    expect(kinds).not.toContain('approval_requested');
  });

  it('stops a run waiting for approval: the command never runs', async () => {
    const { baseURL, workdir } = await start();
    mkdirSync(join(workdir, 'build'));
    fake.script(terminalCall('rm -rf build'), { content: 'Stopped as asked.' });
    const api = runsApi(baseURL);
    const { body } = await api.call('POST', '/runs', { input: 'remove build', attended: true });
    const id = String(body['id']);
    await waitForStatus(api, id, 'waiting_for_approval');
    const stopped = await api.call('POST', `/runs/${id}/stop`);
    expect(stopped.status).toBe(202);
    expect(stopped.body['stop']).toMatchObject({ cancelled: 1 });
    const end = await api.events(id);
    expect(end.events.map((event) => event.event)).toContain('approval_resolved');
    expect(['done', 'failed']).toContain(end.events.at(-1)?.event);
    expect(existsSync(join(workdir, 'build'))).toBe(true);
    expect((await api.call('POST', `/runs/${id}/stop`)).status).toBe(409);
  });

  it('treats an approval nobody answers as a denial when it expires', async () => {
    const { baseURL, workdir } = await start({ yaml: 'approvals:\n  timeout: 1', sweepIntervalMs: 200 });
    mkdirSync(join(workdir, 'build'));
    fake.script(terminalCall('rm -rf build'), { content: 'Nobody allowed it.' });
    const api = runsApi(baseURL);
    const { body } = await api.call('POST', '/runs', { input: 'remove build', attended: true });
    const id = String(body['id']);
    const stream = await api.events(id);
    const kinds = stream.events.map((event) => event.event);
    expect(kinds).toContain('approval_requested');
    expect(stream.events.find((event) => event.event === 'approval_resolved')?.data).toMatchObject({
      outcome: 'timeout',
    });
    expect(stream.events.at(-1)).toMatchObject({ event: 'done', data: { output: 'Nobody allowed it.' } });
    expect(existsSync(join(workdir, 'build'))).toBe(true);
    const late = await api.call('POST', `/runs/${id}/approval`, { choice: 'once' });
    expect(late.status).toBe(409);
  });

  it('requires the API key on every run route, and says which run is unknown', async () => {
    const { baseURL } = await start({ env: { API_SERVER_KEY: 'k-0123456789abcdef' } });
    const anonymous = runsApi(baseURL);
    expect((await anonymous.call('POST', '/runs', { input: 'hi' })).status).toBe(401);
    expect((await anonymous.call('GET', '/runs/run_x')).status).toBe(401);
    expect((await anonymous.call('GET', '/runs/run_x/events')).status).toBe(401);
    expect((await anonymous.call('POST', '/runs/run_x/approval', { choice: 'once' })).status).toBe(401);
    expect((await anonymous.call('POST', '/runs/run_x/stop')).status).toBe(401);
    const keyed = runsApi(baseURL, 'k-0123456789abcdef');
    const missing = await keyed.call('GET', '/runs/run_nope');
    expect(missing.status).toBe(404);
    expect((missing.body['error'] as Record<string, unknown>)['code']).toBe('run_not_found');
    const bad = await keyed.call('POST', '/runs', { input: 'hi', attended: 'yes' });
    expect(bad.status).toBe(400);
  });

  it.runIf(mode === 'bullmq')(
    'follows a run whose turn runs in a separate worker process, through the approval',
    async () => {
      const started = await start({ workers: false });
      mkdirSync(join(started.workdir, 'build'));
      child = spawnCliWorker(started, {
        env: env(),
        logLevel: 'error',
        onStderr: () => {},
      });
      fake.script(terminalCall('rm -rf build'), { content: 'Removed by the worker.' });
      const api = runsApi(started.baseURL);
      const { body } = await api.call('POST', '/runs', { input: 'remove build', attended: true });
      const id = String(body['id']);
      // The worker process takes a while to start on a busy machine.
      await waitForStatus(api, id, 'waiting_for_approval', 45_000);
      expect((await api.call('POST', `/runs/${id}/approval`, { choice: 'once' })).status).toBe(200);
      const end = await api.events(id, { timeoutMs: 20_000 });
      expect(end.events.at(-1)).toMatchObject({ event: 'done', data: { output: 'Removed by the worker.' } });
      expect(existsSync(join(started.workdir, 'build'))).toBe(false);
    },
    75_000,
  );
});
