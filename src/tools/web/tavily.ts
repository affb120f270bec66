import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import { requestProviderJson } from './provider-request.js';
import { type ProviderLimits, plainText, type SearchProvider } from './search-provider.js';

export const TAVILY_ENDPOINT = 'https://api.tavily.com/search';
const TAVILY_MAX_RESULTS = 20;

const tavilyResponse = z.object({
  results: z
    .array(z.object({ title: z.string().default(''), url: z.string(), content: z.string().default('') }))
    .default([]),
});

export interface TavilyOptions {
  readonly apiKey: string;
  readonly limits: ProviderLimits;
  /** Tests point this at a local fake; users cannot change it. */
  readonly endpoint?: string;
}

/** Tavily: POST JSON; the key travels as `api_key` in the body and as a bearer token. */
export function createTavilyProvider(options: TavilyOptions): SearchProvider {
  return {
    name: 'tavily',
    async search(query, { limit, signal }) {
      const body = await requestProviderJson({
        provider: 'tavily',
        url: new URL(options.endpoint ?? TAVILY_ENDPOINT),
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          authorization: `Bearer ${options.apiKey}`,
        },
        body: JSON.stringify({
          api_key: options.apiKey,
          query,
          max_results: Math.min(limit, TAVILY_MAX_RESULTS),
          search_depth: 'basic',
        }),
        limits: options.limits,
        signal,
      });
      const parsed = tavilyResponse.safeParse(body);
      if (!parsed.success) {
        throw new HermesError(
          'search_failed',
          'web_search (tavily): the answer did not have the expected shape',
        );
      }
      return parsed.data.results.slice(0, limit).map((result) => ({
        title: plainText(result.title),
        url: result.url,
        snippet: plainText(result.content),
      }));
    },
  };
}
