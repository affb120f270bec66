import type { FastifyInstance, onRequestHookHandler, RouteOptions } from 'fastify';
import { HermesError } from '../../errors/hermes-error.js';

/**
 * Who may call a route. Every route of the gateway's server declares one in its route options
 * (`config: { access }`, see {@link access}); the server refuses to register a route without it,
 * and attaches the matching check to the route itself. So authentication belongs to the route
 * the router picked, never to a test of the request's URL (which a client can spell in many
 * ways: `%76`, `//`, `/./`…).
 *
 * - `public`: anyone who reaches the port (`/healthz`, the 404 of unknown webhook routes).
 * - `api_key`: `Authorization: Bearer <API_SERVER_KEY>` when a key is set (`/v1/*`).
 * - `monitoring`: the API key too when `http.metrics_auth` says so (`/metrics`, `/readyz`).
 * - `signed`: the route's own secret (a webhook signature over the body, Telegram's secret
 *   token), checked by its handler before it does anything else.
 */
export const ROUTE_ACCESS = ['public', 'api_key', 'monitoring', 'signed'] as const;
export type RouteAccess = (typeof ROUTE_ACCESS)[number];

/** A route as served, with the access it declared. */
export interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
  readonly access: RouteAccess;
}

/** The checks the server attaches, by access; `undefined` lets the request through. */
export type AccessGuards = Readonly<Record<RouteAccess, onRequestHookHandler | undefined>>;

/** Route options declaring who may call the route: `app.get(url, access('api_key'), handler)`. */
export function access(kind: RouteAccess): { readonly config: { readonly access: RouteAccess } } {
  return { config: { access: kind } };
}

const TABLE = 'hermesRouteTable';

declare module 'fastify' {
  interface FastifyInstance {
    /** Set by `installRouteAccess`: every route registered so far, with its access. */
    readonly hermesRouteTable?: readonly RegisteredRoute[];
  }
}

function declaredAccess(route: RouteOptions): RouteAccess | undefined {
  const config: unknown = route.config;
  if (typeof config !== 'object' || config === null) return undefined;
  const value = (config as { access?: unknown }).access;
  return ROUTE_ACCESS.find((kind) => kind === value);
}

/**
 * Makes access a property of every route registered on `app` from now on (in any child
 * plugin too): a route must declare its access or registration throws, and the guard of its
 * access runs as the route's first `onRequest` hook (HEAD routes fastify adds for GET included).
 */
export function installRouteAccess(app: FastifyInstance, guards: AccessGuards): void {
  const table: RegisteredRoute[] = [];
  app.decorate(TABLE, table);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const kind = declaredAccess(route);
    if (kind === undefined) {
      throw new HermesError(
        'route_unguarded',
        `route ${methods.join(',')} ${route.url} declares no access (config.access: ${ROUTE_ACCESS.join(' | ')})`,
      );
    }
    const guard = guards[kind];
    if (guard !== undefined) {
      const own = route.onRequest;
      route.onRequest = [guard, ...(own === undefined ? [] : Array.isArray(own) ? own : [own])];
    }
    for (const method of methods) table.push({ method: String(method), url: route.url, access: kind });
  });
}

/** True when `app` enforces route access (built by `createHttpServer`). */
export function enforcesRouteAccess(app: FastifyInstance): boolean {
  return app.hermesRouteTable !== undefined;
}

/** Every route of the server with its declared access (empty when access is not enforced). */
export function listRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return [...(app.hermesRouteTable ?? [])];
}

/** Refuses to add protected routes to a server that would not enforce their access. */
export function requireRouteAccess(app: FastifyInstance, who: string): void {
  if (!enforcesRouteAccess(app)) {
    throw new HermesError(
      'route_unguarded',
      `${who} needs the gateway's HTTP server (createHttpServer), which enforces route access`,
    );
  }
}
