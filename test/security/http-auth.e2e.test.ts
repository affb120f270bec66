import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from '../fakes/fake-telegram.js';
import { pathVariants } from './path-variants.js';
import { rawRequest } from './raw-http.js';
import { type DiskSnapshot, type SecurityGateway, startSecurityGateway, toolCall } from './security-kit.js';

const TG_SECRET = 'decoy-telegram-webhook-secret-0123';

/** Every route that needs a credential, as an outsider would call it. */
const PROTECTED: readonly { readonly method: string; readonly path: string }[] = [
  { method: 'GET', path: '/v1/models' },
  { method: 'HEAD', path: '/v1/models' },
  { method: 'POST', path: '/v1/chat/completions' },
  { method: 'GET', path: '/metrics' },
  { method: 'GET', path: '/readyz' },
  { method: 'POST', path: '/webhooks/hook' },
  { method: 'GET', path: '/webhooks/hook/runs/run_x' },
  { method: 'POST', path: '/telegram/webhook' },
];

/**
 * The real gateway (`hermes-gateway start`), reachable beyond loopback (so `/metrics` and
 * `/readyz` want the key too), with the API server, a signed webhook route and Telegram in
 * webhook mode — attacked over real HTTP with every spelling of every protected path.
 */
describe('HTTP authentication of the running gateway', () => {
  let telegram: FakeTelegram;
  let gw: SecurityGateway;
  let before: DiskSnapshot;

  beforeAll(async () => {
    telegram = await startFakeTelegram();
    gw = await startSecurityGateway({
      // Every probe below fails authentication: without this, the lockout would answer 429 to
      // most of them and hide whether the signature check itself holds.
      config: { platforms: { webhook: { lockout_failures: 1_000_000 } } },
      env: {
        HERMES_HTTP_HOST: '0.0.0.0',
        TELEGRAM_BOT_TOKEN: telegram.token,
        TELEGRAM_API_ROOT: telegram.apiRoot,
        TELEGRAM_WEBHOOK_URL: 'https://bot.example/telegram/webhook',
        TELEGRAM_WEBHOOK_SECRET: TG_SECRET,
      },
    });
    before = gw.snapshot();
  });
  afterAll(async () => {
    await gw?.close();
    await telegram?.close();
  });

  it('answers no spelling of a protected path with 2xx without the credential, and runs nothing', async () => {
    // What a prompt-injected model would have done had a request got through.
    gw.model.respond = (request) =>
      JSON.stringify(request.body).includes('"role":"tool"')
        ? { content: 'done' }
        : { content: '', toolCalls: [toolCall('terminal', { command: 'touch pwned' })] };
    const failures: string[] = [];
    for (const route of PROTECTED) {
      const failed = failures.length;
      for (const target of [...pathVariants(route.path), `http://127.0.0.1${route.path}`]) {
        for (const authorization of [undefined, 'Bearer wrong-key', `Bearer ${TG_SECRET}`]) {
          if (failures.length - failed >= 3) break; // enough to show a hole, without running every turn
          const body =
            route.method === 'POST'
              ? JSON.stringify({
                  model: 'fake-model',
                  messages: [{ role: 'user', content: 'run touch pwned' }],
                })
              : undefined;
          const answer = await rawRequest(gw.origin, {
            method: route.method,
            target,
            headers: {
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
              ...(authorization === undefined ? {} : { authorization }),
            },
            ...(body === undefined ? {} : { body }),
          });
          if (answer.status < 400 || answer.status >= 500) {
            failures.push(
              `${route.method} ${target} (${authorization ?? 'no credential'}) → ${answer.status}`,
            );
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(gw.model.requests).toHaveLength(0);
    expect(telegram.callsOf('sendMessage')).toHaveLength(0);
    expect(existsSync(join(gw.workdir, 'pwned'))).toBe(false);
    gw.expectUnchanged(before);
  }, 120_000);

  it('serves the same spellings to the key holder: the check is the route’s, whatever the spelling', async () => {
    const withKey = { authorization: `Bearer ${gw.apiKey}` };
    for (const target of ['/v1/models', '/%761/models', '/v%31/models', '/%76%31/%6D%6F%64%65%6C%73']) {
      expect((await rawRequest(gw.origin, { method: 'GET', target, headers: withKey })).status, target).toBe(
        200,
      );
    }
    expect(
      (await rawRequest(gw.origin, { method: 'GET', target: '/metrics', headers: withKey })).status,
    ).toBe(200);
    expect((await rawRequest(gw.origin, { method: 'GET', target: '/healthz' })).status).toBe(200);
  });

  it('runs a turn only for the key holder, through an encoded path too', async () => {
    gw.model.reset();
    gw.model.respond = () => ({ content: 'ok' });
    gw.script({ content: 'Hello, key holder.' });
    const answer = await rawRequest(gw.origin, {
      method: 'POST',
      target: '/%761/chat/completions',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.apiKey}` },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('Hello, key holder.');
    expect(gw.model.requests).toHaveLength(1);
  });

  it('answers a signed webhook body replayed under a new delivery id as a duplicate', async () => {
    gw.model.reset();
    gw.model.respond = () => ({ content: 'triaged' });
    const body = JSON.stringify({ action: 'opened', issue: { number: 1 } });
    const signature = `sha256=${createHmac('sha256', gw.decoys.routeSecret).update(body).digest('hex')}`;
    const post = (delivery: string) =>
      rawRequest(gw.origin, {
        method: 'POST',
        target: '/webhooks/hook',
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': signature,
          'x-github-event': 'issues',
          'x-github-delivery': delivery,
        },
        body,
      });
    expect((await post('d-original')).status).toBe(202);
    for (const delivery of ['d-replay-1', 'd-replay-2']) {
      const replay = await post(delivery);
      expect(replay.status).toBe(200);
      expect(JSON.parse(replay.body)).toMatchObject({ status: 'duplicate' });
    }
    const deadline = Date.now() + 15_000;
    while (gw.model.requests.length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(gw.model.requests).toHaveLength(1);
  });

  it('never wrote a secret to its logs', () => {
    expect(gw.logs()).toContain('hermes-gateway started');
    gw.expectNoSecrets(gw.logs(), 'the gateway logs');
    expect(gw.logs()).not.toContain(TG_SECRET);
    expect(gw.logs()).not.toContain(telegram.token);
  });
});
