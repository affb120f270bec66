import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { startTestGateway, type TestGateway, waitFor } from '../../gateway/e2e/gateway-kit.js';
import { githubHeaders, type Receiver, startReceiver } from './webhook-kit.js';

const SECRET = 'gh-secret-restart-0123456789';

/**
 * The gateway that accepted a webhook delivery goes away before the run's turn ends. Another
 * gateway process (the restart, on the same home and Redis) runs the turn; the run's record and
 * the result's delivery must not depend on the first process' memory: the callback arrives once
 * and `GET /webhooks/<route>/runs/<id>` answers from the new process.
 */
describe('webhook runs across a gateway restart (BullMQ)', () => {
  let fake: FakeOpenAi | undefined;
  let receiver: Receiver | undefined;
  const gateways: TestGateway[] = [];

  afterEach(async () => {
    for (const gw of gateways.splice(0).reverse()) await gw.close();
    await receiver?.close();
    await fake?.close();
  });

  it('delivers the result once from the new process and still reports the run', async () => {
    fake = await startFakeOpenAi();
    fake.respond = () => ({ content: 'Triaged: needs a label.' });
    receiver = await startReceiver();
    const env = {
      OPENAI_BASE_URL: fake.baseURL,
      OPENAI_API_KEY: 'sk-test-0123456789abc',
      HERMES_MODEL: 'fake-model',
      WEBHOOK_ENABLED: 'true',
    };
    const yaml = stringify({
      platforms: {
        webhook: {
          enabled: true,
          routes: { gh: { auth: 'github', secret: SECRET, deliver: { url: receiver.url } } },
        },
      },
    });
    // The first process accepts deliveries but runs no turns (its workers are elsewhere).
    const first = await startTestGateway({ mode: 'bullmq', env, yaml, workers: false });
    gateways.push(first);
    const origin = first.baseURL.replace(/\/v1$/, '');
    const body = JSON.stringify({ action: 'opened', issue: { title: 'crash on start' } });
    const accepted = await fetch(`${origin}/webhooks/gh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...githubHeaders(SECRET, body, 'restart-1') },
      body,
    });
    expect(accepted.status).toBe(202);
    const runId = String(((await accepted.json()) as Record<string, unknown>)['run_id']);
    await first.stop();
    gateways.pop();

    const second = await startTestGateway({
      mode: 'bullmq',
      env,
      home: first.home,
      workdir: first.workdir,
    });
    gateways.push(second);
    const secondOrigin = second.baseURL.replace(/\/v1$/, '');
    await waitFor(() => receiver!.calls.length >= 1, 30_000);
    const callback = JSON.parse(receiver.calls[0]!.body.toString()) as Record<string, unknown>;
    expect(callback).toMatchObject({ run_id: runId, status: 'done', result: 'Triaged: needs a label.' });

    const read = async () => {
      const answer = await fetch(`${secondOrigin}/webhooks/gh/runs/${runId}`, {
        headers: { authorization: `Bearer ${SECRET}` },
      });
      return { status: answer.status, json: (await answer.json()) as Record<string, unknown> };
    };
    await waitFor(async () => (await read()).json['status'] === 'done');
    const run = await read();
    expect(run.status).toBe(200);
    expect(run.json).toMatchObject({
      run_id: runId,
      status: 'done',
      result: 'Triaged: needs a label.',
      delivery: { status: 'delivered', attempts: 1 },
    });
    // The recorded turn end is done with, and later sweeps send nothing again.
    await waitFor(async () => (await second.gateway.store.listOutbox({ platform: 'webhook' })).length === 0);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.calls).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
  }, 60_000);
});
