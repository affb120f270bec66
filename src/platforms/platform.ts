/**
 * How a platform plugs into the gateway: one `PlatformDefinition` per platform, listed once in
 * `src/app/platforms.ts` (start, worker, doctor and /readyz all read that list). Adding a platform
 * is a folder `src/platforms/<name>/` exporting a definition, and one line in that list.
 *
 *   name            token in session keys, logs and /readyz (`platform:<name>`)
 *   configSection   its key under `platforms:` in config.yaml (doctor reports it)
 *   chat            true when it builds a chat adapter (built first; others may deliver to it)
 *   describe()      doctor's line: usable or not, and why (no secrets)
 *   fromConfig()    the platform as configured, or undefined when it is not (no token, disabled);
 *                   throws HermesError `config_invalid` on a half-configured one. Runs before the
 *                   gateway opens anything, so a wrong setting stops the start at once.
 *
 * What `fromConfig` builds (`Platform`) has a chat adapter (adapter.ts: events in through the sink,
 * answers out through its methods), HTTP routes, or both. Routes are a fastify plugin mounted under
 * the platform's own prefix; they get the narrow ingress (ingress.ts) when they are mounted, and
 * every route declares who may call it (`access`, below) or the server refuses to register it.
 */

import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config/config-schema.js';
import { HermesError } from '../errors/hermes-error.js';
import type { SharedFiles } from '../lib/shared-files.js';
import type { PlatformAdapter } from './adapter.js';
import type { Ingress } from './ingress.js';
import type { TurnEndOutbox, WebhookRunRecords } from './webhook-run-records.js';

/**
 * Who may call a route. Every route of the gateway's server declares one in its route options
 * (`config: { access }`, see {@link access}); the server refuses to register a route without it,
 * and attaches the matching check to the route itself (gateway/http/route-access.ts).
 *
 * - `public`: anyone who reaches the port (`/healthz`, the 404 of unknown webhook routes).
 * - `api_key`: `Authorization: Bearer <API_SERVER_KEY>` when a key is set (`/v1/*`).
 * - `monitoring`: the API key too when `http.metrics_auth` says so (`/metrics`, `/readyz`).
 * - `signed`: the route's own secret (a webhook signature over the body, Telegram's secret
 *   token), checked by its handler before it does anything else.
 * - `operator`: the operator dashboard's token (`Authorization: Bearer <HERMES_DASHBOARD_TOKEN>`);
 *   with none set, only a client whose connection comes from a loopback address.
 */
export const ROUTE_ACCESS = ['public', 'api_key', 'monitoring', 'signed', 'operator'] as const;
export type RouteAccess = (typeof ROUTE_ACCESS)[number];

/** Route options declaring who may call the route: `app.get(url, access('api_key'), handler)`. */
export function access(kind: RouteAccess): { readonly config: { readonly access: RouteAccess } } {
  return { config: { access: kind } };
}

/** A route as served, with the access it declared. */
export interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
  readonly access: RouteAccess;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Set by the gateway's server (`installRouteAccess`): every route registered, with its access. */
    readonly hermesRouteTable?: readonly RegisteredRoute[];
  }
}

/** True when `app` enforces route access (the gateway's server, `createHttpServer`). */
export function enforcesRouteAccess(app: FastifyInstance): boolean {
  return app.hermesRouteTable !== undefined;
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

/** Sends a text to a chat of a chat platform running in this process (`home`: its home channel). */
export type DeliverToChat = (platform: string, chatId: string, text: string) => Promise<void>;

/** What a platform's routes get from the gateway when they are mounted. */
export interface RouteServices {
  readonly ingress: Ingress;
  /** Undefined when no chat platform runs in this process. */
  readonly deliverToChat: DeliverToChat | undefined;
  /**
   * The gateway's durable state for platforms that answer outside chats (webhook runs and the
   * turn ends recorded for them); undefined when embedded without a store.
   */
  readonly durable?: {
    readonly webhookRuns: WebhookRunRecords;
    readonly turnEnds: TurnEndOutbox;
  };
}

/** A platform's own HTTP routes, mounted under `prefix` before the server listens. */
export interface PlatformRoutes {
  /** `/telegram`, `/webhooks`, `/v1`…: one per platform, never `/` (the gateway checks). */
  readonly prefix: string;
  /** Registers the routes on `app`, a scope already under `prefix` (`app.post('/webhook', …)`). */
  register(app: FastifyInstance, services: RouteServices): void | Promise<void>;
}

/** A platform as configured. */
export interface Platform {
  /** For the start-up banner and log: `telegram (webhook)`, `api_server`. */
  readonly label: string;
  /** A chat platform: the gateway starts it with its ingress sink and delivers through it. */
  readonly adapter?: PlatformAdapter;
  readonly routes?: PlatformRoutes;
}

/** Doctor's view of a platform's configuration. */
export interface PlatformStatus {
  readonly usable: boolean;
  /** Mode, endpoint or what is missing; never a secret. */
  readonly detail: string;
}

export interface PlatformContext {
  readonly logger: Logger;
  /** Chat platforms this process runs (webhook results may be delivered to them). */
  readonly chatPlatforms: readonly string[];
  /**
   * The shared database's file store (DATABASE_URL): chat attachments are kept there too, so
   * a worker on any machine can open them. Undefined on SQLite deployments.
   */
  readonly sharedFiles?: SharedFiles;
}

export interface PlatformDefinition {
  readonly name: string;
  readonly configSection: keyof Config['platforms'];
  readonly chat: boolean;
  describe(config: Config): PlatformStatus;
  fromConfig(config: Config, context: PlatformContext): Platform | undefined;
}
