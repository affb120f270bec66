import { DiscordAPIError, DiscordjsError, HTTPError, RateLimitError } from 'discord.js';
import { PlatformError } from '../adapter.js';

/** Discord's JSON error codes the adapter tells apart (https://discord.com/developers/docs/topics/opcodes-and-status-codes). */
export const DISCORD_CODES = {
  unknownChannel: 10003,
  unknownMessage: 10008,
  unknownInteraction: 10062,
  missingAccess: 50001,
  cannotSendToUser: 50007,
  missingPermissions: 50013,
  invalidFormBody: 50035,
  alreadyAcknowledged: 40060,
} as const;

/** Network failures where the request surely never left this machine (safe to send again). */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** What @discordjs/rest says once a 401 made it drop the token: every later call fails locally. */
const TOKEN_DROPPED = /Expected token to be set for this request/i;

/** Removes the bot token (and any `Bot <token>` header text) from a text. */
export function sanitizeText(text: string, token: string): string {
  const out = token.length >= 8 ? text.split(token).join('[redacted]') : text;
  return out.replace(/\bBot\s+[A-Za-z0-9._-]{20,}/g, 'Bot [redacted]');
}

/** The error's message without the token; never includes request bodies or headers. */
export function errorMessage(error: unknown, token: string): string {
  if (error instanceof DiscordAPIError) {
    return sanitizeText(
      `${error.method.toUpperCase()} ${routeOf(error.url)}: ${error.status} ${error.code} ${error.message}`,
      token,
    );
  }
  if (error instanceof HTTPError) {
    return sanitizeText(`${error.method.toUpperCase()} ${routeOf(error.url)}: HTTP ${error.status}`, token);
  }
  if (error instanceof RateLimitError) {
    return `${error.method.toUpperCase()} ${error.route}: rate limited for ${Math.round(error.retryAfter)} ms${error.global ? ' (global)' : ''}`;
  }
  return sanitizeText(error instanceof Error ? error.message : String(error), token);
}

/** The path of a REST URL (no host, no query: interaction tokens live in webhook paths, so cut those). */
function routeOf(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url;
  }
  return path.replace(/\/(webhooks\/\d+|interactions\/\d+)\/[^/]+/g, '/$1/[token]');
}

/** True when Discord refused the bot token (401, or the REST client dropped it after one). */
export function isTokenRejected(error: unknown): boolean {
  if (error instanceof DiscordAPIError) return error.status === 401;
  if (error instanceof DiscordjsError) return error.code === 'TokenInvalid';
  return error instanceof Error && TOKEN_DROPPED.test(error.message);
}

function networkCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current !== undefined && depth < 4; depth += 1) {
    if (typeof current !== 'object' || current === null) return undefined;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export interface ToPlatformErrorOptions {
  /**
   * The request carried an enforced nonce: a repeat of it cannot create a second message, so a
   * failure that may have been delivered is still safe to retry.
   */
  readonly idempotent?: boolean;
  /** Milliseconds @discordjs/rest adds to every wait (its `offset`), taken off the reported wait. */
  readonly rateLimitOffsetMs?: number;
}

/**
 * Maps a discord.js failure to the contract's `PlatformError`: 429 → rate_limited with the wait,
 * 401 / 403 → forbidden, unknown channel or message → not_found, other 4xx → bad_request, 5xx,
 * timeouts and network failures → unavailable (maybe delivered unless the send was idempotent or
 * surely never left). The message never holds the token.
 */
export function toPlatformError(
  error: unknown,
  token: string,
  options: ToPlatformErrorOptions = {},
): PlatformError {
  if (error instanceof PlatformError) return error;
  const message = `discord ${errorMessage(error, token)}`;
  const maybe = options.idempotent !== true;
  if (error instanceof RateLimitError) {
    return new PlatformError('rate_limited', message, {
      retryAfterMs: Math.max(0, Math.round(error.retryAfter - (options.rateLimitOffsetMs ?? 0))),
    });
  }
  if (error instanceof DiscordAPIError) {
    const code = typeof error.code === 'number' ? error.code : 0;
    if (error.status === 429) return new PlatformError('rate_limited', message);
    if (error.status === 401 || error.status === 403) return new PlatformError('forbidden', message);
    if (
      error.status === 404 ||
      code === DISCORD_CODES.unknownChannel ||
      code === DISCORD_CODES.unknownMessage
    ) {
      return new PlatformError('not_found', message);
    }
    if (
      code === DISCORD_CODES.invalidFormBody &&
      /BASE_TYPE_MAX_LENGTH/.test(JSON.stringify(error.rawError))
    ) {
      return new PlatformError('too_long', message);
    }
    if (error.status >= 500) return new PlatformError('unavailable', message, { maybeDelivered: maybe });
    return new PlatformError('bad_request', message);
  }
  if (error instanceof HTTPError) {
    return new PlatformError('unavailable', message, { maybeDelivered: maybe });
  }
  if (isTokenRejected(error)) return new PlatformError('forbidden', message);
  const code = networkCode(error);
  return new PlatformError('unavailable', message, {
    maybeDelivered: maybe && (code === undefined || !NOT_SENT_CODES.has(code)),
  });
}
