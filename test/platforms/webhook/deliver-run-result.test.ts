import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import type { QueueMode } from '../../gateway/e2e/gateway-kit.js';
import {
  deadURL,
  githubHeaders,
  type Receiver,
  standardHeaders,
  startReceiver,
  startWebhookGateway,
  type WebhookGateway,
} from './webhook-kit.js';

const GITHUB_SECRET = 'gh-secret-0123456789';
const STANDARD_SECRET = `whsec_${Buffer.from('standard-webhooks-key-0123456789').toString('base64')}`;

/** What a receiver of a GitHub-style callback does: HMAC the raw body with the shared secret. */
function githubCallbackVerifies(headers: IncomingHttpHeaders, body: Buffer, secret: string): boolean {
  const given = Buffer.from(String(headers['x-hub-signature-256'] ?? ''));
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** What a Standard Webhooks receiver does: recompute v1 over id.timestamp.body with the decoded key. */
function standardCallbackVerifies(headers: IncomingHttpHeaders, body: Buffer, secret: string): boolean {
  const id = String(headers['webhook-id']);
  const timestamp = String(headers['webhook-timestamp']);
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${id}.${timestamp}.${body.toString('utf8')}`)
    .digest('base64');
  return String(headers['webhook-signature'])
    .split(' ')
    .some((entry) => entry === `v1,${expected}`);
}

const modes: QueueMode[] = ['embedded', 'bullmq'];

describe.each(modes)('webhook result delivery (%s queue)', (mode) => {
  let fake: FakeOpenAi;
  let receiver: Receiver;
  let gw: WebhookGateway;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await fake.close();
  });
  afterEach(async () => {
    await gw?.close();
    fake.reset();
    receiver.calls.length = 0;
    receiver.statuses.length = 0;
  });

  it('POSTs the result signed the GitHub way, and the receiver can verify it', async () => {
    gw = await startWebhookGateway({
      mode,
      modelURL: fake.baseURL,
      webhook: { routes: { gh: { auth: 'github', secret: GITHUB_SECRET, deliver: { url: receiver.url } } } },
    });
    fake.script({ content: 'Summary: all green.' });
    const body = JSON.stringify({ action: 'completed', check_run: { conclusion: 'success' } });
    const answer = await gw.post('gh', body, githubHeaders(GITHUB_SECRET, body, 'gh-delivery-7'));
    expect(answer.status).toBe(202);
    const runId = String(answer.json['run_id']);
    const replay = await gw.post('gh', body, githubHeaders(GITHUB_SECRET, body, 'gh-delivery-7'));
    expect(replay.json).toEqual({ status: 'duplicate', delivery_id: 'gh-delivery-7' });
    const run = await gw.settledRun('gh', runId, GITHUB_SECRET);
    expect(run).toMatchObject({ status: 'done', delivery: { status: 'delivered', attempts: 1 } });
    expect(fake.requests).toHaveLength(1);
    expect(receiver.calls).toHaveLength(1);
    const call = receiver.calls[0]!;
    expect(githubCallbackVerifies(call.headers, call.body, GITHUB_SECRET)).toBe(true);
    expect(githubCallbackVerifies(call.headers, call.body, 'another-secret')).toBe(false);
    expect(JSON.parse(call.body.toString('utf8'))).toEqual({
      route: 'gh',
      run_id: runId,
      delivery_id: 'gh-delivery-7',
      status: 'done',
      result: 'Summary: all green.',
    });
  });

  if (mode === 'bullmq') return;

  it('signs a Standard Webhooks callback, retrying through 503s with the same message id', async () => {
    gw = await startWebhookGateway({
      mode,
      modelURL: fake.baseURL,
      webhook: {
        delivery_retry_ms: 10,
        routes: { std: { auth: 'standard', secret: STANDARD_SECRET, deliver: { url: receiver.url } } },
      },
    });
    receiver.statuses.push(503, 503);
    fake.script({ content: 'Paid.' });
    const body = JSON.stringify({ type: 'invoice.paid' });
    const answer = await gw.post('std', body, standardHeaders(STANDARD_SECRET, body));
    const runId = String(answer.json['run_id']);
    const run = await gw.settledRun('std', runId, STANDARD_SECRET);
    expect(run).toMatchObject({ status: 'done', delivery: { status: 'delivered', attempts: 3 } });
    expect(receiver.calls).toHaveLength(3);
    for (const call of receiver.calls) {
      expect(call.headers['webhook-id']).toBe(runId);
      expect(standardCallbackVerifies(call.headers, call.body, STANDARD_SECRET)).toBe(true);
    }
  });

  it('records a delivery failure after bounded retries when the receiver is down', async () => {
    gw = await startWebhookGateway({
      mode,
      modelURL: fake.baseURL,
      webhook: {
        delivery_attempts: 3,
        delivery_retry_ms: 10,
        routes: { gh: { auth: 'github', secret: GITHUB_SECRET, deliver: { url: await deadURL() } } },
      },
    });
    fake.script({ content: 'Nobody will hear this.' });
    const body = JSON.stringify({ action: 'opened' });
    const answer = await gw.post('gh', body, githubHeaders(GITHUB_SECRET, body));
    const run = await gw.settledRun('gh', String(answer.json['run_id']), GITHUB_SECRET);
    expect(run['status']).toBe('delivery_failed');
    expect(run['result']).toBe('Nobody will hear this.');
    expect(run['delivery']).toMatchObject({ status: 'failed', attempts: 3 });
    expect(String((run['delivery'] as { error: string }).error)).toMatch(/could not be reached/);
  });

  it('does not retry a receiver that refuses the callback with a 4xx', async () => {
    gw = await startWebhookGateway({
      mode,
      modelURL: fake.baseURL,
      webhook: {
        delivery_retry_ms: 10,
        routes: { gh: { auth: 'github', secret: GITHUB_SECRET, deliver: { url: receiver.url } } },
      },
    });
    receiver.statuses.push(401);
    const body = JSON.stringify({ action: 'opened' });
    const answer = await gw.post('gh', body, githubHeaders(GITHUB_SECRET, body));
    const run = await gw.settledRun('gh', String(answer.json['run_id']), GITHUB_SECRET);
    expect(run).toMatchObject({ status: 'delivery_failed', delivery: { status: 'failed', attempts: 1 } });
    expect(receiver.calls).toHaveLength(1);
  });

  it('sends the result to a chat through the chat delivery callback', async () => {
    const adapter = createTestAdapter({ platform: 'test' });
    await adapter.start(async () => ({ status: 'accepted' }));
    gw = await startWebhookGateway({
      mode,
      modelURL: fake.baseURL,
      webhook: {
        routes: {
          gh: { auth: 'github', secret: GITHUB_SECRET, deliver: { platform: 'test', chat_id: 'ops-room' } },
        },
      },
      deliverToChat: async (platform, chatId, text) => {
        expect(platform).toBe('test');
        await adapter.sendText({ chatId }, { text });
      },
    });
    fake.script({ content: 'Deploy finished.' });
    const body = JSON.stringify({ action: 'deployed' });
    const answer = await gw.post('gh', body, githubHeaders(GITHUB_SECRET, body));
    const run = await gw.settledRun('gh', String(answer.json['run_id']), GITHUB_SECRET);
    expect(run).toMatchObject({ status: 'done', delivery: { status: 'delivered' } });
    expect(adapter.texts('ops-room')).toEqual(['Deploy finished.']);
    await adapter.stop();
  });

  it('records a chat delivery that fails', async () => {
    gw = await startWebhookGateway({
      mode,
      modelURL: fake.baseURL,
      webhook: {
        routes: {
          gh: { auth: 'github', secret: GITHUB_SECRET, deliver: { platform: 'test', chat_id: 'gone' } },
        },
      },
      deliverToChat: async () => {
        throw new Error('chat not found');
      },
    });
    const body = JSON.stringify({ action: 'deployed' });
    const answer = await gw.post('gh', body, githubHeaders(GITHUB_SECRET, body));
    const run = await gw.settledRun('gh', String(answer.json['run_id']), GITHUB_SECRET);
    expect(run['status']).toBe('delivery_failed');
    expect(String((run['delivery'] as { error: string }).error)).toMatch(/chat not found/);
  });

  it('does not deliver an empty or [SILENT] answer', async () => {
    gw = await startWebhookGateway({
      mode,
      modelURL: fake.baseURL,
      webhook: { routes: { gh: { auth: 'github', secret: GITHUB_SECRET, deliver: { url: receiver.url } } } },
    });
    fake.script({ content: '[SILENT]' });
    const body = JSON.stringify({ action: 'noise' });
    const answer = await gw.post('gh', body, githubHeaders(GITHUB_SECRET, body));
    const run = await gw.settledRun('gh', String(answer.json['run_id']), GITHUB_SECRET);
    expect(run).toMatchObject({ status: 'done', delivery: { status: 'skipped' } });
    expect(receiver.calls).toHaveLength(0);
  });
});
