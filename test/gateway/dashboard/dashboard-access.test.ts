import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../../src/gateway/http/create-http-server.js';
import { access } from '../../../src/gateway/http/route-access.js';
import { GatewayMetrics } from '../../../src/gateway/metrics/gateway-metrics.js';
import { silentLogger } from '../../helpers/test-config.js';

const TOKEN = 'dashboard-token-0123456789';

function server(dashboardToken: string | undefined) {
  const app = createHttpServer({
    logger: silentLogger,
    metrics: new GatewayMetrics({ queueDepth: async () => 0, pendingApprovals: async () => 0 }),
    readiness: () => [],
    auth: { apiKey: 'api-key-0123456789', monitoringNeedsKey: false, dashboardToken },
  });
  app.get('/ui/api/probe', access('operator'), async () => ({ ok: true }));
  return app;
}

describe('operator routes (the dashboard’s JSON)', () => {
  const apps: ReturnType<typeof server>[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });

  it('with no token, answers a loopback peer only, whatever headers claim', async () => {
    const app = server(undefined);
    apps.push(app);
    for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const answer = await app.inject({ method: 'GET', url: '/ui/api/probe', remoteAddress });
      expect(answer.statusCode, remoteAddress).toBe(200);
    }
    for (const remoteAddress of ['10.0.0.5', '192.168.1.2', '::ffff:10.0.0.5', '2001:db8::1']) {
      const answer = await app.inject({
        method: 'GET',
        url: '/ui/api/probe',
        remoteAddress,
        headers: { 'x-forwarded-for': '127.0.0.1', host: '127.0.0.1', authorization: `Bearer ${TOKEN}` },
      });
      expect(answer.statusCode, remoteAddress).toBe(403);
    }
  });

  it('with a token, asks every peer for it (loopback included), and not for the API key', async () => {
    const app = server(TOKEN);
    apps.push(app);
    const ask = (remoteAddress: string, authorization?: string) =>
      app.inject({
        method: 'GET',
        url: '/ui/api/probe',
        remoteAddress,
        ...(authorization === undefined ? {} : { headers: { authorization } }),
      });
    expect((await ask('127.0.0.1')).statusCode).toBe(401);
    expect((await ask('127.0.0.1', 'Bearer api-key-0123456789')).statusCode).toBe(401);
    expect((await ask('10.0.0.5', `Bearer ${TOKEN}`)).statusCode).toBe(200);
    expect((await ask('127.0.0.1', `Bearer ${TOKEN}`)).statusCode).toBe(200);
  });
});
