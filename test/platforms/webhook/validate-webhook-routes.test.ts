import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import { validateWebhookRoutes } from '../../../src/platforms/webhook/validate-webhook-routes.js';
import { makeTempHome, testConfig } from '../../helpers/test-config.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function configWith(webhook: Record<string, unknown>, env: Record<string, string> = {}, host?: string) {
  const { home, cleanup } = makeTempHome();
  cleanups.push(cleanup);
  writeFileSync(
    join(home, 'config.yaml'),
    stringify({
      ...(host !== undefined ? { http: { host } } : {}),
      platforms: { webhook: { enabled: true, ...webhook } },
    }),
  );
  return testConfig(home, env);
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(isHermesError(error, 'config_invalid')).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a config_invalid error');
}

const chat = { canDeliverToChat: false };

describe('validateWebhookRoutes', () => {
  it('resolves routes with their own secret or WEBHOOK_SECRET as the default', () => {
    const config = configWith(
      { routes: { a: { auth: 'github', secret: 'own-secret' }, b: { prompt: 'x {y}' } } },
      { WEBHOOK_SECRET: 'default-secret' },
    );
    const routes = validateWebhookRoutes(config, chat);
    expect(routes.map((r) => [r.name, r.scheme, r.secret])).toEqual([
      ['a', 'github', 'own-secret'],
      ['b', 'bearer', 'default-secret'],
    ]);
    expect(routes[1]).toMatchObject({
      template: 'x {y}',
      deliver: { kind: 'log' },
      maxBodyBytes: 1_048_576,
      ratePerMinute: 30,
    });
  });

  it('refuses a route without any secret, naming the key to set', () => {
    const message = refusal(() => validateWebhookRoutes(configWith({ routes: { open: {} } }), chat));
    expect(message).toMatch(/webhook route "open".*platforms\.webhook\.routes\.open\.secret.*WEBHOOK_SECRET/);
  });

  it('allows insecure: true on a loopback bind only, and not together with a secret', () => {
    const routes = validateWebhookRoutes(configWith({ routes: { dev: { insecure: true } } }), chat);
    expect(routes[0]?.secret).toBeUndefined();
    expect(
      refusal(() =>
        validateWebhookRoutes(configWith({ routes: { dev: { insecure: true } } }, {}, '0.0.0.0'), chat),
      ),
    ).toMatch(/loopback.*0\.0\.0\.0/);
    expect(
      refusal(() =>
        validateWebhookRoutes(configWith({ routes: { dev: { insecure: true, secret: 's' } } }), chat),
      ),
    ).toMatch(/both a secret and insecure/);
  });

  it('refuses a malformed whsec_ secret', () => {
    const config = configWith({ routes: { s: { auth: 'standard', secret: 'whsec_???' } } });
    expect(refusal(() => validateWebhookRoutes(config, chat))).toMatch(/whsec_/);
  });

  it('refuses chat delivery when this process has no chat delivery, and non-chat platforms', () => {
    const config = configWith({
      routes: { c: { secret: 's', deliver: { platform: 'telegram', chat_id: '-100' } } },
    });
    expect(refusal(() => validateWebhookRoutes(config, chat))).toMatch(/no chat platform delivery/);
    expect(validateWebhookRoutes(config, { canDeliverToChat: true })[0]?.deliver).toEqual({
      kind: 'chat',
      platform: 'telegram',
      chatId: '-100',
    });
    const loop = configWith({
      routes: { c: { secret: 's', deliver: { platform: 'webhook', chat_id: 'x' } } },
    });
    expect(refusal(() => validateWebhookRoutes(loop, { canDeliverToChat: true }))).toMatch(
      /not a chat platform/,
    );
  });

  it('refuses a callback URL that is not http(s)', () => {
    const config = configWith({ routes: { u: { secret: 's', deliver: { url: 'ftp://example.com/x' } } } });
    expect(refusal(() => validateWebhookRoutes(config, chat))).toMatch(/http\(s\)/);
  });

  it('checks nothing while webhooks are disabled', () => {
    const config = configWith({ enabled: false, routes: { open: {} } });
    expect(validateWebhookRoutes(config, chat)).toEqual([]);
  });

  it('rejects unknown route keys and bad route names in the config file', () => {
    const { home, cleanup } = makeTempHome();
    cleanups.push(cleanup);
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({ platforms: { webhook: { routes: { ok: { secret: 's', sekret: 'typo' } } } } }),
    );
    expect(() => testConfig(home)).toThrow(/sekret/);
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({ platforms: { webhook: { routes: { 'a/b': {} } } } }),
    );
    expect(() => testConfig(home)).toThrow();
  });
});
