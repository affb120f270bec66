import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import { requestProviderJson } from './provider-request.js';
import { type ProviderLimits, plainText, type SearchProvider } from './search-provider.js';

export const BRAVE_ENDPOINT = 'https://api.search.brave.com/res/v1/web/search';
/** The API returns at most this many web results per request. */
const BRAVE_MAX_COUNT = 20;

const braveResponse = z.object({
  web: z
    .object({
      results: z
        .array(
          z.object({ title: z.string().default(''), url: z.string(), description: z.string().default('') }),
        )
        .default([]),
    })
    .optional(),
});

export interface BraveOptions {
  readonly apiKey: string;
  readonly limits: ProviderLimits;
  /** Tests point this at a local fake; users cannot change it. */
  readonly endpoint?: string;
}

/** Brave Search API: GET with the key in `X-Subscription-Token`. */
export function createBraveProvider(options: BraveOptions): SearchProvider {
  return {
    name: 'brave',
    async search(query, { limit, signal }) {
      const url = new URL(options.endpoint ?? BRAVE_ENDPOINT);
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(Math.min(limit, BRAVE_MAX_COUNT)));
      const body = await requestProviderJson({
        provider: 'brave',
        url,
        headers: { accept: 'application/json', 'x-subscription-token': options.apiKey },
        limits: options.limits,
        signal,
      });
      const parsed = braveResponse.safeParse(body);
      if (!parsed.success) {
        throw new HermesError(
          'search_failed',
          'web_search (brave): the answer did not have the expected shape',
        );
      }
      return (parsed.data.web?.results ?? []).slice(0, limit).map((result) => ({
        title: plainText(result.title),
        url: result.url,
        snippet: plainText(result.description),
      }));
    },
  };
}
