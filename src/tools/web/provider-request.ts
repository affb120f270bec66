import { fetch } from 'undici';
import { HermesError } from '../../errors/hermes-error.js';
import { readCapped } from '../../lib/read-capped.js';
import type { ProviderLimits } from './search-provider.js';

/**
 * One JSON request to a search provider's API. The endpoint is operator configuration, so it is
 * not put through the SSRF guard, but it gets the same deadline and byte cap as any fetch, and
 * its failures become errors that say what to do (bad key, rate limit, disabled JSON output).
 */
export interface ProviderRequest {
  readonly provider: string;
  readonly url: URL;
  readonly method?: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly limits: ProviderLimits;
  readonly signal: AbortSignal;
  /** Extra advice for a 403 (e.g. SearXNG's JSON format switch). */
  readonly forbiddenHint?: string;
}

export async function requestProviderJson(request: ProviderRequest): Promise<unknown> {
  const { provider, limits } = request;
  const fail = (message: string, cause?: unknown): never => {
    throw new HermesError('search_failed', `web_search (${provider}): ${message}`, { cause });
  };
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  let status = 0;
  let bytes: Uint8Array;
  try {
    const response = await fetch(request.url, {
      method: request.method ?? 'GET',
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.any([request.signal, timeout]),
    });
    status = response.status;
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return fail(
        describeStatus(response.status, response.headers.get('retry-after'), request.forbiddenHint),
      );
    }
    const body = await readCapped(response.body, limits.maxBytes);
    if (body.truncated) fail(`the response was larger than ${limits.maxBytes} bytes (web.max_bytes)`);
    bytes = body.bytes;
  } catch (error) {
    if (error instanceof HermesError) throw error;
    if (request.signal.aborted) throw request.signal.reason ?? error;
    if (timeout.aborted) return fail(`no answer within ${limits.timeoutMs} ms`);
    return fail(`request failed (${networkDetail(error)})`, error);
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  } catch (error) {
    return fail(`HTTP ${status} answer is not JSON`, error);
  }
}

function describeStatus(
  status: number,
  retryAfter: string | null,
  forbiddenHint: string | undefined,
): string {
  if (status === 401) return 'HTTP 401: the API key was rejected; check web.search.api_key';
  if (status === 403) {
    return `HTTP 403: access denied${forbiddenHint ? ` (${forbiddenHint})` : '; check web.search.api_key and the plan'}`;
  }
  if (status === 429) {
    const seconds = retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : undefined;
    const wait = seconds === undefined ? 'wait before searching again' : `retry after ${seconds} s`;
    return `HTTP 429: rate limit or quota reached; ${wait}`;
  }
  if (status >= 500) return `HTTP ${status}: the search provider failed; try again later`;
  return `HTTP ${status}: the search request was refused`;
}

function networkDetail(error: unknown): string {
  let cursor: unknown = error;
  for (let depth = 0; depth < 5 && cursor !== null && typeof cursor === 'object'; depth += 1) {
    const { code } = cursor as { code?: unknown };
    if (typeof code === 'string') return code;
    cursor = (cursor as { cause?: unknown }).cause;
  }
  return error instanceof Error ? error.message : String(error);
}
