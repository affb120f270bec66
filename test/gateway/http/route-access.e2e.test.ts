import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createGateway, type Gateway } from '../../../src/app/create-gateway.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import { createHttpServer, httpAuthOf } from '../../../src/gateway/http/create-http-server.js';
import { listRoutes, type RegisteredRoute } from '../../../src/gateway/http/route-access.js';
import { GatewayMetrics } from '../../../src/gateway/metrics/gateway-metrics.js';
import { registerApiServer } from '../../../src/platforms/api-server/register-api-server.js';
import { telegramAdapterFromConfig } from '../../../src/platforms/telegram/telegram-platform.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type FakeTelegram, startFakeTelegram } from '../../fakes/fake-telegram.js';
import { silentLogger } from '../../helpers/test-config.js';
import { pathVariants } from '../../security/path-variants.js';
import { rawRequest } from '../../security/raw-http.js';
import { TOOLS_DIR } from '../e2e/gateway-kit.js';

const API_KEY = 'route-table-api-key-0123456789';
const ROUTE_SECRET = 'route-table-webhook-secret-0123';
const TG_SECRET = 'route-table-telegram-secret-0123';

/** A concrete path for a route pattern (`:id` → a sample value). */
function concrete(url: string): string {
  return url.replace(/:[A-Za-z_]+/g, 'run_sample');
}

describe('every route of the gateway enforces its own access, whatever the path spelling', () => {
  let model: FakeOpenAi;
  let telegram: FakeTelegram;
  let gateway: Gateway;
  let origin: string;
  let routes: readonly RegisteredRoute[];
  const dirs: string[] = [];

  beforeAll(async () => {
    model = await startFakeOpenAi();
    telegram = await startFakeTelegram();
    const home = mkdtempSync(join(tmpdir(), 'hermes-routes-'));
    const workdir = mkdtempSync(join(tmpdir(), 'hermes-routes-work-'));
    dirs.push(home, workdir);
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({
        http: { port: 0, metrics_auth: 'key' },
        platforms: {
          webhook: {
            enabled: true,
            routes: {
              gh: { auth: 'github', secret: ROUTE_SECRET },
              std: { auth: 'standard', secret: `whsec_${Buffer.from(ROUTE_SECRET).toString('base64')}` },
              bear: { auth: 'bearer', secret: ROUTE_SECRET },
            },
          },
        },
      }),
    );
    const config = loadConfig({
      home,
      env: {
        TERMINAL_CWD: workdir,
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: 'sk-test-0123456789abcdef',
        HERMES_MODEL: 'fake-model',
        API_SERVER_KEY: API_KEY,
        HERMES_DASHBOARD_TOKEN: 'route-table-dashboard-token-0123',
        TELEGRAM_BOT_TOKEN: telegram.token,
        TELEGRAM_API_ROOT: telegram.apiRoot,
        TELEGRAM_WEBHOOK_URL: 'https://bot.example/telegram/webhook',
        TELEGRAM_WEBHOOK_SECRET: TG_SECRET,
      },
    });
    const adapter = telegramAdapterFromConfig(config, silentLogger);
    if (adapter === undefined) throw new Error('no telegram adapter');
    gateway = await createGateway({
      config,
      logger: silentLogger,
      baseEnv: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: workdir },
      builtinToolsDir: TOOLS_DIR,
      role: 'gateway',
      adapters: [adapter],
    });
    if (gateway.app === undefined) throw new Error('no http server');
    origin = (await gateway.start()) ?? '';
    routes = listRoutes(gateway.app);
  });

  afterAll(async () => {
    await gateway?.close();
    await telegram?.close();
    await model?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('knows every route and what it requires (the table the checks below walk)', () => {
    const protectedRoutes = routes.filter((r) => r.access !== 'public').map((r) => `${r.method} ${r.url}`);
    expect(protectedRoutes).toEqual(
      expect.arrayContaining([
        'GET /v1/models',
        'HEAD /v1/models',
        'POST /v1/chat/completions',
        'GET /metrics',
        'GET /readyz',
        'POST /webhooks/gh',
        'GET /webhooks/gh/runs/:id',
        'POST /webhooks/std',
        'POST /webhooks/bear',
        'POST /telegram/webhook',
        'GET /ui/api/overview',
        'POST /ui/api/approvals/:id/decision',
      ]),
    );
    expect(routes.filter((r) => r.access === 'public').map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining(['GET /healthz']),
    );
  });

  it('answers no spelling of a protected route with 2xx without credentials, and starts no turn', async () => {
    const failures: string[] = [];
    let tried = 0;
    for (const route of routes.filter((r) => r.access !== 'public')) {
      for (const target of pathVariants(concrete(route.url))) {
        const body =
          route.method === 'POST'
            ? JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] })
            : undefined;
        const answer = await rawRequest(origin, {
          method: route.method,
          target,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body }),
        });
        tried += 1;
        if (answer.status < 400 || answer.status >= 500) {
          failures.push(`${route.method} ${target} → ${answer.status} (${route.access})`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(tried).toBeGreaterThan(300);
    expect(model.requests).toHaveLength(0);
    expect(telegram.messages()).toHaveLength(0);
  });

  it('lets the same spellings through with the key: the guard belongs to the route, not the URL', async () => {
    for (const target of ['/v1/models', '/%761/models', '/v%31/models', '/%76%31/%6d%6f%64%65%6c%73']) {
      const answer = await rawRequest(origin, {
        method: 'GET',
        target,
        headers: { authorization: `Bearer ${API_KEY}` },
      });
      expect(answer.status, target).toBe(200);
    }
    const metrics = await rawRequest(origin, {
      method: 'GET',
      target: '/%6detrics',
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(metrics.status).toBe(200);
    expect((await rawRequest(origin, { method: 'GET', target: '/healthz' })).status).toBe(200);
  });
});

describe('routes that do not declare their access', () => {
  const metrics = () => new GatewayMetrics({ queueDepth: async () => 0, pendingApprovals: async () => 0 });

  it('are refused when they are registered, in the root and in child plugins', async () => {
    const app = createHttpServer({
      logger: silentLogger,
      metrics: metrics(),
      readiness: () => [],
      auth: { apiKey: 'k', monitoringNeedsKey: false },
    });
    expect(() => app.get('/v1/runs', async () => ({}))).toThrow(/declares no access/);
    app.register(async (scope) => {
      scope.post('/feishu/webhook', async () => ({}));
    });
    const error = await app.ready().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isHermesError(error, 'route_unguarded')).toBe(true);
    await app.close();
  });

  it('the API server refuses a server that would not enforce them', () => {
    const home = mkdtempSync(join(tmpdir(), 'hermes-bare-'));
    try {
      const config = loadConfig({ home, env: { API_SERVER_KEY: 'k' } });
      expect(() =>
        registerApiServer(Fastify(), {
          config,
          logger: silentLogger,
          ingress: {} as never,
        }),
      ).toThrow(/enforces route access/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('http.metrics_auth', () => {
  const home = mkdtempSync(join(tmpdir(), 'hermes-mauth-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const auth = (env: Record<string, string>, yaml = 'auto') => {
    writeFileSync(join(home, 'config.yaml'), `http:\n  metrics_auth: ${yaml}\n`);
    return httpAuthOf(loadConfig({ home, env }), silentLogger);
  };

  it('auto asks for the key only beyond loopback and only when a key is set', () => {
    expect(auth({ API_SERVER_KEY: 'k' }).monitoringNeedsKey).toBe(false);
    expect(auth({ API_SERVER_KEY: 'k', HERMES_HTTP_HOST: '0.0.0.0' }).monitoringNeedsKey).toBe(true);
    expect(auth({ API_SERVER_KEY: 'k', HERMES_HTTP_HOST: '::' }).monitoringNeedsKey).toBe(true);
    expect(auth({ HERMES_HTTP_HOST: '0.0.0.0' }).monitoringNeedsKey).toBe(false);
  });

  it('key and none are taken as said; key without a key is a configuration error', () => {
    expect(auth({ API_SERVER_KEY: 'k' }, 'key').monitoringNeedsKey).toBe(true);
    expect(auth({ API_SERVER_KEY: 'k', HERMES_HTTP_HOST: '0.0.0.0' }, 'none').monitoringNeedsKey).toBe(false);
    expect(() => auth({}, 'key')).toThrow(/API_SERVER_KEY/);
  });
});
