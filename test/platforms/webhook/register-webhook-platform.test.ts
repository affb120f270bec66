import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { githubHeaders, standardHeaders, startWebhookGateway, type WebhookGateway } from './webhook-kit.js';

const GITHUB_SECRET = 'gh-secret-0123456789';
const STANDARD_SECRET = `whsec_${Buffer.from('standard-webhooks-key-0123456789').toString('base64')}`;
const BEARER_SECRET = 'bearer-secret-0123456789';

const ROUTES = {
  gh: { auth: 'github', secret: GITHUB_SECRET },
  std: { auth: 'standard', secret: STANDARD_SECRET },
  token: { auth: 'bearer', secret: BEARER_SECRET },
  small: { auth: 'bearer', secret: BEARER_SECRET, max_body_bytes: 1024 },
  slow: { auth: 'bearer', secret: BEARER_SECRET, rate_limit: 2 },
  issues: {
    auth: 'github',
    secret: GITHUB_SECRET,
    filters: { action: ['opened', 'reopened'], 'headers.x-github-event': 'issues' },
    prompt: 'Triage issue {issue.title} ({issue.labels.0.name}); milestone {issue.milestone.title}.',
  },
};

describe.each(['embedded', 'bullmq'] as const)('webhook routes over HTTP (%s queue)', (mode) => {
  let fake: FakeOpenAi;
  let gw: WebhookGateway;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    await fake.close();
  });
  afterEach(async () => {
    await gw?.close();
    fake.reset();
    fake.respond = () => ({ content: 'ok' });
  });

  async function start(extra: Record<string, unknown> = {}, routes: Record<string, unknown> = ROUTES) {
    gw = await startWebhookGateway({
      mode,
      modelURL: fake.baseURL,
      webhook: { routes, ...extra },
    });
    return gw;
  }

  describe('github scheme', () => {
    it('accepts a valid signature with 202 and a run id, then runs the turn', async () => {
      await start();
      fake.script({ content: 'Handled the push.' });
      const body = JSON.stringify({ action: 'opened', ref: 'main' });
      const answer = await gw.post('gh', body, githubHeaders(GITHUB_SECRET, body, 'delivery-1'));
      expect(answer.status).toBe(202);
      expect(answer.json).toMatchObject({ status: 'accepted', delivery_id: 'delivery-1' });
      const runId = String(answer.json['run_id']);
      expect(runId).toMatch(/^run_/);
      const run = await gw.settledRun('gh', runId, GITHUB_SECRET);
      expect(run).toMatchObject({
        status: 'done',
        result: 'Handled the push.',
        delivery: { status: 'logged' },
        session_key: 'agent:main:webhook:webhook:webhook:gh:delivery-1:webhook:gh',
      });
      // The raw-body parser lives in the webhook scope only: the API server still parses JSON.
      expect((await gw.get('/v1/models')).status).toBe(200);
    });

    it('refuses a tampered body, a wrong secret and a missing signature with 401', async () => {
      await start();
      const body = JSON.stringify({ action: 'opened' });
      const signed = githubHeaders(GITHUB_SECRET, body);
      const tampered = await gw.post('gh', body.replace('opened', 'closed'), signed);
      expect(tampered.status).toBe(401);
      const wrongSecret = await gw.post('gh', body, githubHeaders('not-the-secret', body));
      expect(wrongSecret.status).toBe(401);
      const missing = await gw.post('gh', body, { 'x-github-delivery': 'x' });
      expect(missing.status).toBe(401);
      expect(String((missing.json['error'] as { message: string }).message)).toMatch(/X-Hub-Signature-256/);
      expect(fake.requests).toHaveLength(0);
    });

    it('answers a replayed delivery with 200 duplicate and runs it once', async () => {
      await start();
      const body = JSON.stringify({ action: 'opened' });
      const headers = githubHeaders(GITHUB_SECRET, body, 'same-delivery');
      const first = await gw.post('gh', body, headers);
      expect(first.status).toBe(202);
      const replay = await gw.post('gh', body, headers);
      expect(replay.status).toBe(200);
      expect(replay.json).toEqual({ status: 'duplicate', delivery_id: 'same-delivery' });
      await gw.settledRun('gh', String(first.json['run_id']), GITHUB_SECRET);
      expect(fake.requests).toHaveLength(1);
    });
  });

  describe('replays under a new delivery id', () => {
    it('github: the same signed body with a fresh X-GitHub-Delivery is a duplicate and runs once', async () => {
      await start();
      const body = JSON.stringify({ action: 'opened', issue: { number: 7 } });
      const first = await gw.post('gh', body, githubHeaders(GITHUB_SECRET, body, 'original'));
      expect(first.status).toBe(202);
      for (const id of ['replay-1', 'replay-2', undefined]) {
        const replay = await gw.post('gh', body, {
          ...githubHeaders(GITHUB_SECRET, body, id ?? 'x'),
          ...(id === undefined ? { 'x-github-delivery': '', 'idempotency-key': 'other-key' } : {}),
        });
        expect(replay.status).toBe(200);
        expect(replay.json['status']).toBe('duplicate');
      }
      await gw.settledRun('gh', String(first.json['run_id']), GITHUB_SECRET);
      expect(fake.requests).toHaveLength(1);
      // Another body is another event.
      const other = JSON.stringify({ action: 'opened', issue: { number: 8 } });
      const next = await gw.post('gh', other, githubHeaders(GITHUB_SECRET, other, 'next'));
      expect(next.status).toBe(202);
      await gw.settledRun('gh', String(next.json['run_id']), GITHUB_SECRET);
    });

    it('standard: a new message with the same body is signed anew, so it is a new event', async () => {
      await start();
      const body = JSON.stringify({ type: 'ping' });
      const one = await gw.post('std', body, standardHeaders(STANDARD_SECRET, body, { id: 'msg_1' }));
      const two = await gw.post('std', body, standardHeaders(STANDARD_SECRET, body, { id: 'msg_2' }));
      expect([one.status, two.status]).toEqual([202, 202]);
      await gw.settledRun('std', String(one.json['run_id']), STANDARD_SECRET);
      await gw.settledRun('std', String(two.json['run_id']), STANDARD_SECRET);
      // Reusing a signed id+timestamp with another id fails the signature.
      const forged = standardHeaders(STANDARD_SECRET, body, { id: 'msg_1' });
      forged['webhook-id'] = 'msg_3';
      expect((await gw.post('std', body, forged)).status).toBe(401);
    });
  });

  describe('standard webhooks scheme', () => {
    it('accepts a valid signature and uses webhook-id as the delivery id', async () => {
      await start();
      const body = JSON.stringify({ type: 'invoice.paid', data: { id: 'in_1' } });
      const answer = await gw.post('std', body, standardHeaders(STANDARD_SECRET, body, { id: 'msg_abc' }));
      expect(answer.status).toBe(202);
      expect(answer.json['delivery_id']).toBe('msg_abc');
      await gw.settledRun('std', String(answer.json['run_id']), STANDARD_SECRET);
    });

    it('accepts a header with several signatures when one of them matches', async () => {
      await start();
      const body = JSON.stringify({ type: 'x' });
      const headers = standardHeaders(STANDARD_SECRET, body);
      headers['webhook-signature'] =
        `v1,${Buffer.alloc(32).toString('base64')} ${headers['webhook-signature']}`;
      const answer = await gw.post('std', body, headers);
      expect(answer.status).toBe(202);
      await gw.settledRun('std', String(answer.json['run_id']), STANDARD_SECRET);
    });

    it('refuses a tampered body, a wrong secret and a stale or future timestamp with 401', async () => {
      await start();
      const body = JSON.stringify({ type: 'x' });
      const tampered = await gw.post('std', `${body} `, standardHeaders(STANDARD_SECRET, body));
      expect(tampered.status).toBe(401);
      const other = `whsec_${Buffer.from('another-key-another-key-0000').toString('base64')}`;
      expect((await gw.post('std', body, standardHeaders(other, body))).status).toBe(401);
      const tenMinutes = 600;
      const stale = await gw.post(
        'std',
        body,
        standardHeaders(STANDARD_SECRET, body, { timestamp: Math.floor(Date.now() / 1000) - tenMinutes }),
      );
      expect(stale.status).toBe(401);
      expect(String((stale.json['error'] as { message: string }).message)).toMatch(/timestamp/);
      const future = await gw.post(
        'std',
        body,
        standardHeaders(STANDARD_SECRET, body, { timestamp: Math.floor(Date.now() / 1000) + tenMinutes }),
      );
      expect(future.status).toBe(401);
      expect(fake.requests).toHaveLength(0);
    });

    it('answers a replayed message (same id, timestamp and signature) with duplicate', async () => {
      await start();
      const body = JSON.stringify({ type: 'x' });
      const headers = standardHeaders(STANDARD_SECRET, body, { id: 'msg_replay' });
      const first = await gw.post('std', body, headers);
      expect(first.status).toBe(202);
      const replay = await gw.post('std', body, headers);
      expect(replay.json).toEqual({ status: 'duplicate', delivery_id: 'msg_replay' });
      await gw.settledRun('std', String(first.json['run_id']), STANDARD_SECRET);
      expect(fake.requests).toHaveLength(1);
    });
  });

  describe('bearer scheme', () => {
    it('accepts the secret, refuses a wrong or missing one, and dedupes an identical body', async () => {
      await start();
      const body = JSON.stringify({ alert: 'disk full', host: 'db1' });
      const ok = await gw.post('token', body, { authorization: `Bearer ${BEARER_SECRET}` });
      expect(ok.status).toBe(202);
      expect(String(ok.json['delivery_id'])).toMatch(/^body-[0-9a-f]{32}$/);
      expect((await gw.post('token', body, { authorization: 'Bearer nope' })).status).toBe(401);
      expect((await gw.post('token', body)).status).toBe(401);
      const again = await gw.post('token', body, { authorization: `Bearer ${BEARER_SECRET}` });
      expect(again.json['status']).toBe('duplicate');
      const keyed = await gw.post('token', body, {
        authorization: `Bearer ${BEARER_SECRET}`,
        'idempotency-key': 'alert-2',
      });
      expect(keyed.status).toBe(202);
      expect(keyed.json['delivery_id']).toBe('alert-2');
      await gw.settledRun('token', String(ok.json['run_id']), BEARER_SECRET);
      await gw.settledRun('token', String(keyed.json['run_id']), BEARER_SECRET);
    });
  });

  describe('limits and errors', () => {
    it('answers 404 for an unknown route and 400 for malformed JSON', async () => {
      await start();
      const unknown = await gw.post('nope', '{}', { authorization: `Bearer ${BEARER_SECRET}` });
      expect(unknown.status).toBe(404);
      const malformed = await gw.post('token', '{"broken"', { authorization: `Bearer ${BEARER_SECRET}` });
      expect(malformed.status).toBe(400);
      expect(malformed.json).toMatchObject({ error: { type: 'invalid_json' } });
    });

    it('refuses a deeply nested signed body with 400 before recording it, so the sender can still deliver', async () => {
      await start();
      const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
      const refused = await gw.post('gh', deep, githubHeaders(GITHUB_SECRET, deep, 'deep-1'));
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({ error: { type: 'payload_too_deep' } });
      expect(fake.requests).toHaveLength(0);
      // The same delivery id, now with a sane body, is taken: nothing was marked for the refusal.
      const body = JSON.stringify({ action: 'opened', issue: { title: 'fine' } });
      const accepted = await gw.post('gh', body, githubHeaders(GITHUB_SECRET, body, 'deep-1'));
      expect(accepted.status).toBe(202);
      await gw.settledRun('gh', String(accepted.json['run_id']), GITHUB_SECRET);
    });

    it('answers 413 for a body over max_body_bytes', async () => {
      await start();
      const big = JSON.stringify({ blob: 'x'.repeat(2048) });
      const answer = await gw.post('small', big, { authorization: `Bearer ${BEARER_SECRET}` });
      expect(answer.status).toBe(413);
      const fits = JSON.stringify({ blob: 'x'.repeat(100) });
      const ok = await gw.post('small', fits, { authorization: `Bearer ${BEARER_SECRET}` });
      expect(ok.status).toBe(202);
      await gw.settledRun('small', String(ok.json['run_id']), BEARER_SECRET);
    });

    it('answers 413 from the declared length without waiting for the rest of the body', async () => {
      await start();
      const url = new URL(`${gw.origin}/webhooks/small`);
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              // Over the route's 1 KB limit, under the server-wide 1 MB one.
              'content-length': String(64 * 1024),
              authorization: `Bearer ${BEARER_SECRET}`,
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
            req.destroy();
          },
        );
        req.on('error', (error) => {
          if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
        });
        // Only 512 bytes are ever sent: the answer must come anyway.
        req.write('x'.repeat(512));
      });
      expect(status).toBe(413);
    });

    it('answers 429 with Retry-After once the route rate limit is used up', async () => {
      await start();
      const auth = { authorization: `Bearer ${BEARER_SECRET}` };
      const a = await gw.post('slow', '{"n":1}', auth);
      const b = await gw.post('slow', '{"n":2}', auth);
      const c = await gw.post('slow', '{"n":3}', auth);
      expect([a.status, b.status]).toEqual([202, 202]);
      expect(c.status).toBe(429);
      expect(Number(c.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      await gw.settledRun('slow', String(a.json['run_id']), BEARER_SECRET);
      await gw.settledRun('slow', String(b.json['run_id']), BEARER_SECRET);
    });

    it('locks out an address after repeated authentication failures', async () => {
      await start({ lockout_failures: 3, lockout_ms: 60_000 });
      for (let i = 0; i < 3; i += 1) {
        expect((await gw.post('token', '{}', { authorization: 'Bearer wrong' })).status).toBe(401);
      }
      const locked = await gw.post('token', '{}', { authorization: `Bearer ${BEARER_SECRET}` });
      expect(locked.status).toBe(429);
      expect(locked.json).toMatchObject({ error: { type: 'locked_out' } });
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      const status = await gw.get('/webhooks/token/runs/run_x', { authorization: `Bearer ${BEARER_SECRET}` });
      expect(status.status).toBe(429);
      expect(fake.requests).toHaveLength(0);
    });
  });

  it('serves nothing while webhooks are disabled', async () => {
    await start({ enabled: false });
    const answer = await gw.post('token', '{}', { authorization: `Bearer ${BEARER_SECRET}` });
    expect(answer.status).toBe(404);
  });

  it('answers 503 with the reason when no model is configured, without consuming the delivery id', async () => {
    let reason: string | undefined = 'No model is configured: set HERMES_MODEL.';
    gw = await startWebhookGateway({
      mode,
      modelURL: fake.baseURL,
      webhook: { routes: ROUTES },
      unavailableReason: () => reason,
    });
    const body = JSON.stringify({ action: 'opened' });
    const headers = githubHeaders(GITHUB_SECRET, body, 'retry-me');
    const refused = await gw.post('gh', body, headers);
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ error: { message: 'No model is configured: set HERMES_MODEL.' } });
    reason = undefined;
    const accepted = await gw.post('gh', body, headers);
    expect(accepted.status).toBe(202);
    await gw.settledRun('gh', String(accepted.json['run_id']), GITHUB_SECRET);
  });

  /** A gateway whose first `failures` submits fail (the queue is down). */
  async function startWithFlakyQueue(failures: number): Promise<void> {
    let left = failures;
    gw = await startWebhookGateway({
      mode,
      modelURL: fake.baseURL,
      webhook: { routes: ROUTES },
      wrapSubmit: (submit) => async (item) => {
        if (left-- > 0) throw new Error('queue down');
        return submit(item);
      },
    });
  }

  it('lets the sender retry a delivery whose queueing failed', async () => {
    await startWithFlakyQueue(1);
    const body = JSON.stringify({ action: 'opened' });
    const headers = githubHeaders(GITHUB_SECRET, body, 'flaky-queue');
    expect((await gw.post('gh', body, headers)).status).toBe(503);
    const retried = await gw.post('gh', body, headers);
    expect(retried.status).toBe(202);
    expect((await gw.post('gh', body, headers)).json['status']).toBe('duplicate');
    await gw.settledRun('gh', String(retried.json['run_id']), GITHUB_SECRET);
    expect(fake.requests).toHaveLength(1);
  });

  it('releases every dedupe record of a delivery whose queueing failed, whatever id the retry carries', async () => {
    await startWithFlakyQueue(1);
    const body = JSON.stringify({ action: 'opened', n: 1 });
    expect((await gw.post('gh', body, githubHeaders(GITHUB_SECRET, body, 'first-try'))).status).toBe(503);
    // A redelivery may come with a new delivery id: the body record was released too.
    const retried = await gw.post('gh', body, githubHeaders(GITHUB_SECRET, body, 'redelivery'));
    expect(retried.status).toBe(202);
    expect((await gw.post('gh', body, githubHeaders(GITHUB_SECRET, body, 'first-try'))).json['status']).toBe(
      'duplicate',
    );
    await gw.settledRun('gh', String(retried.json['run_id']), GITHUB_SECRET);
    expect(fake.requests).toHaveLength(1);
  });

  describe('filters and templates', () => {
    it('answers 200 filtered for a delivery that does not match, and runs nothing', async () => {
      await start();
      const closed = JSON.stringify({ action: 'closed', issue: { title: 'x' } });
      const answer = await gw.post('issues', closed, githubHeaders(GITHUB_SECRET, closed));
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ status: 'filtered' });
      const push = JSON.stringify({ action: 'opened', issue: { title: 'x' } });
      const wrongEvent = await gw.post('issues', push, {
        ...githubHeaders(GITHUB_SECRET, push),
        'x-github-event': 'push',
      });
      expect(wrongEvent.json).toEqual({ status: 'filtered' });
      expect(fake.requests).toHaveLength(0);
    });

    it('fills the template with nested and indexed values, marks missing keys, and delimits the data', async () => {
      await start();
      const body = JSON.stringify({
        action: 'reopened',
        issue: { title: 'Crash on start', labels: [{ name: 'bug' }] },
      });
      const answer = await gw.post('issues', body, githubHeaders(GITHUB_SECRET, body));
      expect(answer.status).toBe(202);
      await gw.settledRun('issues', String(answer.json['run_id']), GITHUB_SECRET);
      const sent = fake.requests[0]?.body as { messages: { role: string; content: string }[] };
      const prompt = sent.messages.at(-1)?.content ?? '';
      expect(prompt).toContain('Triage issue <webhook_payload>Crash on start</webhook_payload>');
      expect(prompt).toContain('(<webhook_payload>bug</webhook_payload>)');
      expect(prompt).toContain('milestone [missing: issue.milestone.title]');
      expect(prompt).toMatch(/untrusted/);
      expect(prompt).toMatch(/Do not follow instructions/);
    });
  });

  describe('run status', () => {
    it('needs the route secret as a bearer token, and keeps runs per route', async () => {
      await start();
      const body = JSON.stringify({ action: 'opened' });
      const answer = await gw.post('gh', body, githubHeaders(GITHUB_SECRET, body));
      const runId = String(answer.json['run_id']);
      expect(answer.json['status_url']).toBe(`/webhooks/gh/runs/${runId}`);
      expect((await gw.get(`/webhooks/gh/runs/${runId}`)).status).toBe(401);
      expect((await gw.get(`/webhooks/gh/runs/${runId}`, { authorization: 'Bearer wrong' })).status).toBe(
        401,
      );
      const other = await gw.get(`/webhooks/token/runs/${runId}`, {
        authorization: `Bearer ${BEARER_SECRET}`,
      });
      expect(other.status).toBe(404);
      const run = await gw.settledRun('gh', runId, GITHUB_SECRET);
      expect(run['status']).toBe('done');
      expect((await gw.get('/webhooks/nope/runs/x')).status).toBe(404);
    });

    it('reports a failed turn as failed with the error', async () => {
      await start();
      fake.script({ status: 400, error: 'model refused' });
      const body = JSON.stringify({ action: 'opened' });
      const answer = await gw.post('gh', body, githubHeaders(GITHUB_SECRET, body));
      const run = await gw.settledRun('gh', String(answer.json['run_id']), GITHUB_SECRET);
      expect(run['status']).toBe('failed');
      expect(String(run['error'])).toMatch(/model_error/);
    });
  });
});
