import { nodeListFiles, nodeSearchContent } from './node-search.js';
import { ripgrepListFiles, ripgrepSearchContent } from './ripgrep-search.js';
import type { ContentHit, SearchPage, SearchQuery } from './search-page.js';

export type SearchEngineName = 'ripgrep' | 'node';

export interface EngineResult<T> {
  readonly page: SearchPage<T>;
  readonly engine: SearchEngineName;
}

/**
 * Content search with ripgrep when `ripgrep` names a command that exists (looked up by spawning
 * it, once per call), with the built-in search otherwise or when `ripgrep` is false.
 */
export async function searchContent(
  query: SearchQuery,
  ripgrep: string | false,
): Promise<EngineResult<ContentHit>> {
  if (ripgrep !== false) {
    const page = await ripgrepSearchContent(ripgrep, query);
    if (page !== undefined) return { page, engine: 'ripgrep' };
  }
  return { page: await nodeSearchContent(query), engine: 'node' };
}

/** File-name search; same engine choice as searchContent. A single file is matched directly. */
export async function listFiles(query: SearchQuery, ripgrep: string | false): Promise<EngineResult<string>> {
  if (ripgrep !== false && !query.rootIsFile) {
    const page = await ripgrepListFiles(ripgrep, query);
    if (page !== undefined) return { page, engine: 'ripgrep' };
  }
  return { page: await nodeListFiles(query), engine: 'node' };
}
