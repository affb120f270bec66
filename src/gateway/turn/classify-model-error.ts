import OpenAI from 'openai';
import { ModelStreamStalledError } from './stream-completion.js';

/** What a failed model request means for the turn. */
export interface ModelErrorVerdict {
  readonly retryable: boolean;
  /** Server-requested wait (Retry-After / retry-after-ms), in ms. */
  readonly retryAfterMs: number | undefined;
  readonly code: 'model_unreachable' | 'model_error';
  /** Plain words for the user (no stack, no secrets). */
  readonly message: string;
  /** Short label for logs and progress events. */
  readonly reason: string;
}

const MAX_SERVER_TEXT = 300;

/**
 * Sorts a failed model request by the error's type and status, never by its wording:
 * connection problems, timeouts (including a stream gone silent), 408, 409, 429 and 5xx are worth
 * retrying; other 4xx are not.
 */
export function classifyModelError(error: unknown, model: string): ModelErrorVerdict {
  if (error instanceof ModelStreamStalledError) {
    const silence =
      error.silentMs >= 1000 ? `${Math.round(error.silentMs / 1000)} s` : `${error.silentMs} ms`;
    return unreachable('stalled', `The model server stopped sending mid-answer (nothing for ${silence}).`);
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return unreachable('timeout', 'The model server did not answer in time.');
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return unreachable('connection', 'The model server could not be reached.');
  }
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    const status = error.status;
    const retryAfterMs = retryAfterOf(error.headers);
    if (status === 429) {
      return {
        retryable: true,
        retryAfterMs,
        code: 'model_unreachable',
        reason: 'rate_limited',
        message: 'The model server is rate-limiting requests (HTTP 429).',
      };
    }
    if (status >= 500 || status === 408 || status === 409) {
      return {
        retryable: true,
        retryAfterMs,
        code: 'model_unreachable',
        reason: `http_${status}`,
        message: `The model server had a problem (HTTP ${status}).`,
      };
    }
    const detail = serverText(error);
    if (status === 401 || status === 403) {
      return refused(
        status,
        `The model server refused the credentials (HTTP ${status}). The operator should check OPENAI_API_KEY / model.api_key.`,
      );
    }
    if (status === 404) {
      return refused(
        status,
        `The model server does not know the model '${model.slice(0, 100)}' or the endpoint (HTTP 404). The operator should check HERMES_MODEL and OPENAI_BASE_URL.`,
      );
    }
    return refused(
      status,
      `The model server rejected the request (HTTP ${status})${detail ? `: ${detail}` : '.'}`,
    );
  }
  // Anything else (a stream cut off mid-way, a malformed chunk) is treated like a network problem.
  return unreachable('stream', 'The connection to the model server broke off.');
}

function unreachable(reason: string, message: string): ModelErrorVerdict {
  return { retryable: true, retryAfterMs: undefined, code: 'model_unreachable', reason, message };
}

function refused(status: number, message: string): ModelErrorVerdict {
  return {
    retryable: false,
    retryAfterMs: undefined,
    code: 'model_error',
    reason: `http_${status}`,
    message,
  };
}

function serverText(error: InstanceType<typeof OpenAI.APIError>): string {
  const body = error.error;
  let text = '';
  if (typeof body === 'object' && body !== null && 'message' in body) {
    const message = (body as { message?: unknown }).message;
    if (typeof message === 'string') text = message;
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > MAX_SERVER_TEXT ? `${text.slice(0, MAX_SERVER_TEXT)}…` : text;
}

/** Reads `retry-after-ms` or `retry-after` (seconds or an HTTP date); undefined when absent or odd. */
export function retryAfterOf(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (headers === undefined) return undefined;
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get('retry-after');
  if (raw === null) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}
