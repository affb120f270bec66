import type { Config, WebhookRouteConfig } from '../../config/config-schema.js';
import { HermesError } from '../../errors/hermes-error.js';
import { isLoopbackHost } from '../../lib/bearer-auth.js';
import type { FilterValue } from './match-filters.js';
import { isUsableSecret, type WebhookAuthScheme } from './webhook-signature.js';

export type WebhookDelivery =
  | { readonly kind: 'log' }
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'chat'; readonly platform: string; readonly chatId: string };

/** A route as the platform uses it: its secret resolved, its delivery typed. */
export interface WebhookRoute {
  readonly name: string;
  readonly scheme: WebhookAuthScheme;
  /** Undefined only for an `insecure: true` route on a loopback bind: no authentication. */
  readonly secret: string | undefined;
  readonly template: string | undefined;
  readonly filters: Readonly<Record<string, FilterValue | readonly FilterValue[]>>;
  /** Toolsets replacing `hermes-webhook`; undefined keeps the safe subset. */
  readonly toolsets: readonly string[] | undefined;
  readonly deliver: WebhookDelivery;
  readonly maxBodyBytes: number;
  readonly ratePerMinute: number;
}

/** Platforms a webhook result cannot be sent to as a chat message. */
const NOT_CHAT_PLATFORMS = new Set(['webhook', 'api_server', 'api-server']);

function problem(route: string, message: string): HermesError {
  return new HermesError('config_invalid', `webhook route "${route}": ${message}`);
}

function resolveRoute(
  name: string,
  route: WebhookRouteConfig,
  config: Config,
  canDeliverToChat: boolean,
): WebhookRoute {
  const where = `platforms.webhook.routes.${name}`;
  if (route.insecure && route.secret !== undefined) {
    throw problem(name, `sets both a secret and insecure: true; remove one of them (${where})`);
  }
  let secret: string | undefined;
  if (route.insecure) {
    if (!isLoopbackHost(config.http.host)) {
      throw problem(
        name,
        `insecure: true (no secret) is allowed only while the server binds to a loopback address, but http.host is ${config.http.host}; give the route a secret (${where}.secret)`,
      );
    }
  } else {
    secret = route.secret ?? config.platforms.webhook.secret;
    if (secret === undefined) {
      throw problem(
        name,
        `has no secret: set ${where}.secret, or WEBHOOK_SECRET as the default of every route (a route without any secret needs insecure: true and a loopback bind)`,
      );
    }
    if (!isUsableSecret(secret)) {
      throw problem(name, 'its whsec_ secret is not valid base64 of at least 16 bytes');
    }
  }
  const deliver = route.deliver;
  let delivery: WebhookDelivery;
  if (deliver === 'log') {
    delivery = { kind: 'log' };
  } else if ('url' in deliver) {
    if (!/^https?:\/\//i.test(deliver.url)) {
      throw problem(name, `deliver.url must be an http(s) URL (${where}.deliver.url)`);
    }
    delivery = { kind: 'url', url: deliver.url };
  } else {
    if (NOT_CHAT_PLATFORMS.has(deliver.platform)) {
      throw problem(name, `deliver.platform "${deliver.platform}" is not a chat platform`);
    }
    if (!canDeliverToChat) {
      throw problem(
        name,
        `delivers to a chat (${deliver.platform}:${deliver.chat_id}), but no chat platform delivery is available in this process; use deliver: log or deliver: { url } until chat delivery is set up`,
      );
    }
    delivery = { kind: 'chat', platform: deliver.platform, chatId: deliver.chat_id };
  }
  return {
    name,
    scheme: route.auth,
    secret,
    template: route.prompt,
    filters: route.filters,
    toolsets: route.toolsets,
    deliver: delivery,
    maxBodyBytes: route.max_body_bytes,
    ratePerMinute: route.rate_limit,
  };
}

/**
 * Checks the webhook routes at start-up and resolves them. Throws `config_invalid` naming the
 * route and the key to fix: a route without a secret (unless `insecure: true` on a loopback
 * bind), a malformed `whsec_` secret, a non-http callback URL, or a chat delivery when this
 * process cannot send to chats. Returns no routes while webhooks are disabled.
 */
export function validateWebhookRoutes(
  config: Config,
  options: { readonly canDeliverToChat: boolean },
): WebhookRoute[] {
  const webhook = config.platforms.webhook;
  if (!webhook.enabled) return [];
  return Object.entries(webhook.routes).map(([name, route]) =>
    resolveRoute(name, route as WebhookRouteConfig, config, options.canDeliverToChat),
  );
}
