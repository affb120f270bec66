import { type RateLimitData, REST, RESTEvents } from 'discord.js';

/** Milliseconds @discordjs/rest adds to every rate-limit wait (its default); taken off the waits we report. */
export const RATE_LIMIT_OFFSET_MS = 50;
/** Longer than this in discord.js' queue and the call fails as rate limited instead of waiting. */
const MAX_QUEUE_WAIT_MS = 10_000;
/** Sends and edits of messages: the gateway's delivery retries these itself, obeying the wait. */
const DELIVERY_ROUTES = new Set(['POST /channels/:id/messages', 'PATCH /channels/:id/messages/:id']);

export interface DiscordRestOptions {
  /** REST base (`https://discord.com/api`, or a fake's `http://127.0.0.1:PORT/api`). */
  readonly apiRoot: string;
  readonly token: string;
  /** Milliseconds before a request is abandoned (and retried by @discordjs/rest, up to 3 times). */
  readonly timeoutMs?: number;
}

function pathOf(url: string): string {
  const path = url.replace(/^[a-z]+:\/\/[^/]+/i, '').split('?')[0] ?? '';
  return path.replace(/^.*?\/v\d+(?=\/)/, '');
}

/**
 * The REST client the adapter and the Discord tools use, on discord.js' queue (per-route buckets,
 * pre-emptive waits, 5xx and timeout retries). Rate limits: a 429 Discord actually answered to a
 * message send or edit fails the call as rate limited (the gateway's delivery waits and retries it
 * in order); any wait longer than 10 s fails the call instead of holding it; shorter pre-emptive
 * waits are left to the queue.
 */
export function createDiscordRest(options: DiscordRestOptions): REST {
  const answered429 = new Set<string>();
  const rest = new REST({
    api: options.apiRoot.replace(/\/+$/, ''),
    version: '10',
    offset: RATE_LIMIT_OFFSET_MS,
    timeout: options.timeoutMs ?? 15_000,
    rejectOnRateLimit: (data: RateLimitData) => {
      const key = `${data.method.toUpperCase()} ${pathOf(data.url)}`;
      const answered = answered429.delete(key);
      if (data.timeToReset > MAX_QUEUE_WAIT_MS || data.retryAfter > MAX_QUEUE_WAIT_MS) return true;
      return answered && DELIVERY_ROUTES.has(`${data.method.toUpperCase()} ${data.route}`);
    },
  });
  // Seen before the queue decides about the 429 (the event is emitted synchronously with the answer).
  rest.on(RESTEvents.Response, (request, response) => {
    if (response.status !== 429) return;
    answered429.add(`${request.method.toUpperCase()} ${request.path}`);
    if (answered429.size > 256) answered429.clear();
  });
  rest.setToken(options.token);
  return rest;
}
