import type { Config } from '../../config/config-schema.js';
import { createBraveProvider } from './brave.js';
import type { SearchProvider } from './search-provider.js';
import { createSearxngProvider } from './searxng.js';
import { createTavilyProvider } from './tavily.js';

/** Endpoint overrides for tests; the public endpoints are not user configuration. */
export interface ProviderEndpoints {
  readonly brave?: string;
  readonly tavily?: string;
}

export type ProviderChoice =
  | { readonly ok: true; readonly provider: SearchProvider }
  | { readonly ok: false; readonly reason: string };

const NONE =
  'web_search: no search provider configured; set web.search.provider to brave or tavily (with ' +
  'web.search.api_key) or to searxng (with web.search.searxng_url)';

/** Builds the provider `web.search` names, or says why none can be built. */
export function createSearchProvider(web: Config['web'], endpoints: ProviderEndpoints = {}): ProviderChoice {
  const { search } = web;
  const limits = { timeoutMs: web.timeout_ms, maxBytes: web.max_bytes };
  const missingKey = (name: string) => ({
    ok: false as const,
    reason: `web_search: web.search.provider is ${name} but web.search.api_key is not set`,
  });
  switch (search.provider) {
    case 'none':
      return { ok: false, reason: NONE };
    case 'brave':
      if (search.api_key === undefined) return missingKey('brave');
      return {
        ok: true,
        provider: createBraveProvider({ apiKey: search.api_key, limits, endpoint: endpoints.brave }),
      };
    case 'tavily':
      if (search.api_key === undefined) return missingKey('tavily');
      return {
        ok: true,
        provider: createTavilyProvider({ apiKey: search.api_key, limits, endpoint: endpoints.tavily }),
      };
    case 'searxng':
      if (search.searxng_url === undefined) {
        return {
          ok: false,
          reason: 'web_search: web.search.provider is searxng but web.search.searxng_url is not set',
        };
      }
      return { ok: true, provider: createSearxngProvider({ baseUrl: search.searxng_url, limits }) };
  }
}
