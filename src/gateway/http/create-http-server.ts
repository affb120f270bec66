import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';

/** One component's readiness: ok, or why not. */
export interface ReadinessCheck {
  readonly name: string;
  readonly check: () => Promise<{ readonly ok: boolean; readonly reason?: string }>;
}

export interface HttpServerOptions {
  readonly logger: Logger;
  readonly metrics: GatewayMetrics;
  readonly readiness: () => readonly ReadinessCheck[];
  /** Largest request body accepted by default, bytes (routes may lower it). */
  readonly bodyLimit?: number;
}

/**
 * The one fastify server: health, readiness and metrics here; platforms add their routes
 * (`/v1/*`, `/webhooks/*`, `/telegram/webhook`, …) before it listens.
 */
export function createHttpServer(options: HttpServerOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: options.logger.child({ component: 'http' }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit ?? 1_048_576,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });

  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const results = await Promise.all(
      options.readiness().map(async ({ name, check }) => {
        try {
          const result = await check();
          return { name, ok: result.ok, ...(result.reason !== undefined ? { reason: result.reason } : {}) };
        } catch (error) {
          return { name, ok: false, reason: (error as Error).message };
        }
      }),
    );
    const ready = results.every((r) => r.ok);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks: results });
  });

  app.get('/metrics', async (_request, reply) => {
    const { contentType, body } = await options.metrics.render();
    return reply.type(contentType).send(body);
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      error: { message: `no route for ${request.method} ${request.url.split('?')[0]}`, type: 'not_found' },
    }),
  );
  app.setErrorHandler((error: { statusCode?: number; message?: string }, request, reply) => {
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error.message }, 'request failed');
    return reply.code(status).send({
      error: {
        message: status >= 500 ? 'internal error' : (error.message ?? 'bad request'),
        type: 'request_error',
      },
    });
  });
  return app;
}
