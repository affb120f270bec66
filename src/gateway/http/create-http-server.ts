import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.js';
import { HermesError } from '../../errors/hermes-error.js';
import { bearerMatches, isLoopbackHost } from '../../lib/bearer-auth.js';
import { jsonTextDepthExceeds } from '../../lib/json-text-depth.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { access, installRouteAccess } from './route-access.js';

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
  readonly auth: HttpAuth;
}

/** The credentials the server's own guards check (see `route-access.ts`). */
export interface HttpAuth {
  /** API_SERVER_KEY; undefined leaves `api_key` routes open (refused beyond loopback at start). */
  readonly apiKey: string | undefined;
  /** True when `/metrics` and `/readyz` ask for the API key too (`http.metrics_auth`). */
  readonly monitoringNeedsKey: boolean;
  /** The operator dashboard's token; undefined: `operator` routes answer loopback clients only. */
  readonly dashboardToken?: string | undefined;
}

/**
 * The server's credentials from the config: `http.metrics_auth` resolved (`auto` asks for the
 * key when one is set and the server listens beyond loopback). Throws `config_invalid` for
 * `key` without an API key; warns when monitoring stays open beyond loopback.
 */
export function httpAuthOf(config: Config, logger: Logger): HttpAuth {
  const apiKey = config.platforms.api_server.key;
  const mode = config.http.metrics_auth;
  const beyondLoopback = !isLoopbackHost(config.http.host);
  if (mode === 'key' && apiKey === undefined) {
    throw new HermesError(
      'config_invalid',
      'http.metrics_auth is "key" but no API key is set: set API_SERVER_KEY, or choose "auto" or "none"',
    );
  }
  const monitoringNeedsKey = mode === 'key' || (mode === 'auto' && apiKey !== undefined && beyondLoopback);
  if (!monitoringNeedsKey && beyondLoopback) {
    logger.warn(
      { host: config.http.host, metricsAuth: mode },
      '/metrics and /readyz answer without a key on a non-loopback address',
    );
  }
  return { apiKey, monitoringNeedsKey, dashboardToken: config.platforms.api_server.dashboard_token };
}

/**
 * One spelling per route: no trailing-slash, double-slash, case or `;` variants reach a route
 * (each would be one more spelling to reason about). These are fastify's defaults, pinned here
 * so a change of default cannot widen them. (A named constant: find-my-way's types lack
 * `useSemicolonDelimiter`, which fastify does pass on.)
 */
const ROUTER_OPTIONS = {
  caseSensitive: true,
  ignoreTrailingSlash: false,
  ignoreDuplicateSlashes: false,
  useSemicolonDelimiter: false,
};

const KEY_HINT = 'Missing or wrong API key: send Authorization: Bearer <API_SERVER_KEY>.';

/** A 401 in the OpenAI API's error shape (what the API clients read). */
function refuseKey(reply: FastifyReply): FastifyReply {
  return reply
    .code(401)
    .header('www-authenticate', 'Bearer')
    .send({ error: { message: KEY_HINT, type: 'invalid_api_key', param: null, code: 'invalid_api_key' } });
}

/** Deepest JSON request body any route reads (no client of ours nests further). */
export const MAX_JSON_BODY_DEPTH = 256;

function keyGuard(key: string) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> =>
    bearerMatches(request.headers.authorization, key) ? undefined : refuseKey(reply);
}

/** True when the connection itself comes from this machine (the socket's peer, never a header). */
export function fromLoopback(request: FastifyRequest): boolean {
  const address = request.socket.remoteAddress ?? '';
  return isLoopbackHost(address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address);
}

const OPERATOR_HINT =
  'The dashboard needs its token (Authorization: Bearer <HERMES_DASHBOARD_TOKEN>), or a loopback client when none is set.';

function operatorGuard(token: string | undefined) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const allowed =
      token === undefined ? fromLoopback(request) : bearerMatches(request.headers.authorization, token);
    if (allowed) return undefined;
    return reply
      .code(token === undefined ? 403 : 401)
      .headers(token === undefined ? {} : { 'www-authenticate': 'Bearer' })
      .send({ error: { message: OPERATOR_HINT, type: 'operator_only' } });
  };
}

/**
 * The one fastify server: health, readiness and metrics here; platforms add their routes
 * (`/v1/*`, `/webhooks/*`, `/telegram/webhook`, …) before it listens. Every route declares
 * who may call it (`route-access.ts`); the check is attached to the route, never to a URL test.
 */
export function createHttpServer(options: HttpServerOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: options.logger.child({ component: 'http' }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit ?? 1_048_576,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: ROUTER_OPTIONS,
  });
  // Fastify's own JSON parser (prototype poisoning refused), after a depth check on the text: a
  // deeply nested body would otherwise stall the event loop inside JSON.parse.
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (jsonTextDepthExceeds(text, MAX_JSON_BODY_DEPTH)) {
      done(
        Object.assign(new Error(`The JSON body nests deeper than ${MAX_JSON_BODY_DEPTH} levels.`), {
          statusCode: 400,
        }),
        undefined,
      );
      return;
    }
    parseJson(request, text, done);
  });
  const { apiKey, monitoringNeedsKey } = options.auth;
  installRouteAccess(app, {
    public: undefined,
    signed: undefined,
    api_key: apiKey === undefined ? undefined : keyGuard(apiKey),
    monitoring: apiKey !== undefined && monitoringNeedsKey ? keyGuard(apiKey) : undefined,
    operator: operatorGuard(options.auth.dashboardToken),
  });

  app.get('/healthz', access('public'), async () => ({ status: 'ok' }));

  app.get('/readyz', access('monitoring'), async (_request, reply) => {
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

  app.get('/metrics', access('monitoring'), async (_request, reply) => {
    const { contentType, body } = await options.metrics.render();
    return reply.type(contentType).send(body);
  });

  // `request.url` is only echoed here (trimmed), never used to decide anything.
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      error: {
        message: `no route for ${request.method} ${(request.url.split('?')[0] ?? '').slice(0, 200)}`,
        type: 'not_found',
      },
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
