import { isIP } from 'node:net';
import { Agent, buildConnector, fetch } from 'undici';
import { HermesError, isHermesError } from '../../errors/hermes-error.js';
import { readCapped } from '../../lib/read-capped.js';
import { defaultPort, type SsrfGuard } from './ssrf-guard.js';

/**
 * GET a user-supplied URL through the SSRF guard: redirects are followed by hand (each hop is
 * checked again), every connection dials the address the guard approved, the whole exchange —
 * redirects and body included — shares one deadline, and the body is read up to a byte cap.
 */
export interface SafeFetchOptions {
  readonly guard: SsrfGuard;
  /** Milliseconds for the whole fetch, redirects and body included. */
  readonly timeoutMs: number;
  /** Bytes of body read at most; the rest is not downloaded. */
  readonly maxBytes: number;
  readonly maxRedirects: number;
  /** The caller's signal (turn stopped); aborts everything. */
  readonly signal: AbortSignal;
  readonly accept: string;
  /** Decides from the media type whether the body is downloaded at all; default: always. */
  readonly wantBody?: (mime: string) => boolean;
}

export interface SafeResponse {
  readonly finalUrl: string;
  readonly status: number;
  readonly statusText: string;
  /** Lower-case media type without parameters; '' when the server sent none. */
  readonly mime: string;
  readonly charset: string | undefined;
  /** Undefined when the body was not read (error status, or refused by `wantBody`). */
  readonly body: Uint8Array | undefined;
  readonly truncated: boolean;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'hermes-gateway/0.1 (web tools)';

export async function safeFetch(url: string, options: SafeFetchOptions): Promise<SafeResponse> {
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw new HermesError('fetch_failed', `not a valid absolute URL: ${url}`);
  }
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  const agent = new Agent({ connect: guardedConnector(options.guard, options.timeoutMs) });
  try {
    for (let hop = 0; ; hop += 1) {
      options.guard.checkUrl(current);
      const response = await fetch(current, {
        dispatcher: agent,
        redirect: 'manual',
        signal,
        headers: { accept: options.accept, 'user-agent': USER_AGENT, 'accept-language': 'en;q=0.9, *;q=0.5' },
      });
      const location = response.headers.get('location');
      if (REDIRECT_STATUSES.has(response.status) && location !== null) {
        await response.body?.cancel().catch(() => undefined);
        if (hop >= options.maxRedirects) {
          throw new HermesError(
            'fetch_failed',
            `too many redirects (more than ${options.maxRedirects}) from ${url}`,
          );
        }
        current = nextHop(location, current);
        continue;
      }
      const { mime, charset } = parseContentType(response.headers.get('content-type'));
      const base = {
        finalUrl: current.href,
        status: response.status,
        statusText: response.statusText,
        mime,
        charset,
      };
      if (!response.ok || (options.wantBody !== undefined && !options.wantBody(mime))) {
        await response.body?.cancel().catch(() => undefined);
        return { ...base, body: undefined, truncated: false };
      }
      const { bytes, truncated } = await readCapped(response.body, options.maxBytes);
      return { ...base, body: bytes, truncated };
    }
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason ?? error;
    if (timeout.aborted) {
      throw new HermesError('fetch_failed', `timed out after ${options.timeoutMs} ms fetching ${url}`);
    }
    throw asFetchError(error, current.href);
  } finally {
    await agent.destroy().catch(() => undefined);
  }
}

function nextHop(location: string, from: URL): URL {
  try {
    return new URL(location, from);
  } catch {
    throw new HermesError('fetch_failed', `${from.href} redirected to an invalid location: ${location}`);
  }
}

/**
 * A connector that asks the guard where to dial, so the checked addresses are the ones connected
 * to. Addresses are tried in the resolver's order until one accepts the connection.
 */
function guardedConnector(guard: SsrfGuard, timeoutMs: number): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs });
  return (options, callback) => {
    const port = Number(options.port) || defaultPort(options.protocol);
    // TLS still verifies the certificate against the original name (servername).
    const servername = options.servername || (isIP(options.hostname) ? undefined : options.hostname);
    const attempt = (addresses: readonly string[], index: number): void => {
      connect({ ...options, hostname: addresses[index] ?? '', servername }, (...result) => {
        const [error] = result;
        if (error !== null && index + 1 < addresses.length && RETRYABLE_CONNECT.has(errorCode(error))) {
          attempt(addresses, index + 1);
        } else {
          callback(...result);
        }
      });
    };
    guard.resolveTarget(options.hostname, port).then(
      (addresses) => attempt(addresses, 0),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  };
}

const RETRYABLE_CONNECT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

function errorCode(error: Error): string {
  const { code } = error as { code?: unknown };
  return typeof code === 'string' ? code : '';
}

export function parseContentType(header: string | null): { mime: string; charset: string | undefined } {
  if (header === null) return { mime: '', charset: undefined };
  const [type = '', ...params] = header.split(';');
  let charset: string | undefined;
  for (const param of params) {
    const match = /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(param);
    if (match?.[1] !== undefined) charset = match[1].toLowerCase();
  }
  return { mime: type.trim().toLowerCase(), charset };
}

/** Finds our own error in undici's `cause` chain, or describes the network failure. */
function asFetchError(error: unknown, url: string): HermesError {
  let cursor: unknown = error;
  const seen = new Set<unknown>();
  let detail = '';
  while (cursor !== undefined && cursor !== null && !seen.has(cursor)) {
    if (isHermesError(cursor)) return cursor;
    seen.add(cursor);
    const { code, message } = cursor as { code?: unknown; message?: unknown };
    if (typeof code === 'string') detail = code;
    else if (detail === '' && typeof message === 'string' && message !== 'fetch failed') detail = message;
    cursor = (cursor as { cause?: unknown }).cause;
  }
  return new HermesError('fetch_failed', `could not fetch ${url}: ${detail || 'network error'}`, {
    cause: error,
  });
}
