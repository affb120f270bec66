import { GrammyError, HttpError } from 'grammy';
import { PlatformError } from '../adapter.js';

/** Network failures where the request surely never reached Telegram (safe to send again). */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Removes the bot token from a text: every literal occurrence, and any `/bot<token>/` URL
 * segment (grammY and fetch errors carry the request URL, which holds the token).
 */
export function sanitizeText(text: string, token: string): string {
  let out = token.length >= 4 ? text.split(token).join('[redacted]') : text;
  out = out.replace(/\/bot[^/\s'"]+/g, '/bot[redacted]');
  return out;
}

/** The error's message without the token; never includes causes or request payloads. */
export function errorMessage(error: unknown, token: string): string {
  if (error instanceof GrammyError) {
    return sanitizeText(`${error.method}: ${error.error_code} ${error.description}`, token);
  }
  if (error instanceof HttpError) return sanitizeText(error.message, token);
  return sanitizeText(error instanceof Error ? error.message : String(error), token);
}

function networkCode(error: HttpError): string | undefined {
  const inner: unknown = error.error;
  if (typeof inner !== 'object' || inner === null) return undefined;
  const code = (inner as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const cause = (inner as { cause?: unknown }).cause;
  if (typeof cause === 'object' && cause !== null) {
    const nested = (cause as { code?: unknown }).code;
    if (typeof nested === 'string') return nested;
  }
  return undefined;
}

/** True for Telegram's "can't parse entities" refusal of our HTML. */
export function isEntityError(error: unknown): boolean {
  return (
    error instanceof GrammyError &&
    error.error_code === 400 &&
    /can't parse entities|can't find end of|unsupported start tag|unexpected end tag/i.test(error.description)
  );
}

/**
 * Maps a grammY failure to the contract's `PlatformError`: 429 → rate_limited with the wait,
 * "message is too long" → too_long, 403 → forbidden, unknown chat or message → not_found, other
 * 4xx → bad_request, 5xx and network failures → unavailable. The message never holds the token.
 */
export function toPlatformError(error: unknown, token: string): PlatformError {
  if (error instanceof PlatformError) return error;
  const message = `telegram ${errorMessage(error, token)}`;
  if (error instanceof GrammyError) {
    const description = error.description;
    if (error.error_code === 429) {
      const seconds = error.parameters.retry_after;
      return new PlatformError('rate_limited', message, {
        ...(typeof seconds === 'number' ? { retryAfterMs: seconds * 1000 } : {}),
      });
    }
    if (error.error_code === 403) return new PlatformError('forbidden', message);
    if (/message is too long|text is too long|MESSAGE_TOO_LONG/i.test(description)) {
      return new PlatformError('too_long', message);
    }
    if (
      error.error_code === 404 ||
      /message to edit not found|chat not found|message not found|MESSAGE_ID_INVALID|thread not found/i.test(
        description,
      )
    ) {
      return new PlatformError('not_found', message);
    }
    if (error.error_code >= 500) return new PlatformError('unavailable', message, { maybeDelivered: true });
    return new PlatformError('bad_request', message);
  }
  if (error instanceof HttpError) {
    const code = networkCode(error);
    return new PlatformError('unavailable', message, {
      maybeDelivered: code === undefined || !NOT_SENT_CODES.has(code),
    });
  }
  return new PlatformError('unavailable', message, { maybeDelivered: true });
}
