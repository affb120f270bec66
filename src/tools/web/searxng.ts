import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import { requestProviderJson } from './provider-request.js';
import { type ProviderLimits, plainText, type SearchProvider } from './search-provider.js';

const searxngResponse = z.object({
  results: z
    .array(z.object({ title: z.string().default(''), url: z.string(), content: z.string().nullish() }))
    .default([]),
});

export interface SearxngOptions {
  /** `web.search.searxng_url`: the instance's base URL (a path prefix is kept). */
  readonly baseUrl: string;
  readonly limits: ProviderLimits;
}

/** A self-hosted SearXNG instance: `GET {base}/search?q=…&format=json` (JSON output must be enabled). */
export function createSearxngProvider(options: SearxngOptions): SearchProvider {
  const base = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
  return {
    name: 'searxng',
    async search(query, { limit, signal }) {
      const url = new URL('search', base);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const body = await requestProviderJson({
        provider: 'searxng',
        url,
        headers: { accept: 'application/json' },
        limits: options.limits,
        signal,
        forbiddenHint:
          "the instance may not allow JSON output; add 'json' to search.formats in its settings.yml",
      });
      const parsed = searxngResponse.safeParse(body);
      if (!parsed.success) {
        throw new HermesError(
          'search_failed',
          'web_search (searxng): the answer did not have the expected shape',
        );
      }
      return parsed.data.results.slice(0, limit).map((result) => ({
        title: plainText(result.title),
        url: result.url,
        snippet: plainText(result.content ?? ''),
      }));
    },
  };
}
