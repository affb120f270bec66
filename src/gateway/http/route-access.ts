import type { FastifyInstance, onRequestHookHandler, RouteOptions } from 'fastify';
import { HermesError } from '../../errors/hermes-error.js';
import {
  access,
  enforcesRouteAccess,
  type RegisteredRoute,
  ROUTE_ACCESS,
  type RouteAccess,
  requireRouteAccess,
} from '../../platforms/platform.js';

/*
 * Route access is declared by routes (`access(kind)`, in the platform contract so platforms can
 * declare it too) and enforced here: see ROUTE_ACCESS in platforms/platform.ts for what each kind
 * means. Authentication belongs to the route the router picked, never to a test of the request's
 * URL (which a client can spell in many ways: `%76`, `//`, `/./`…).
 */
export {
  access,
  enforcesRouteAccess,
  type RegisteredRoute,
  ROUTE_ACCESS,
  type RouteAccess,
  requireRouteAccess,
};

/** The checks the server attaches, by access; `undefined` lets the request through. */
export type AccessGuards = Readonly<Record<RouteAccess, onRequestHookHandler | undefined>>;

const TABLE = 'hermesRouteTable';

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

/** Every route of the server with its declared access (empty when access is not enforced). */
export function listRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return [...(app.hermesRouteTable ?? [])];
}
