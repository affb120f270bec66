import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTavilyProvider } from '../../../src/tools/web/tavily.js';
import { type FakeSearchServer, startFakeSearchServer, tavilyBody } from '../../fakes/fake-search-servers.js';

let fake: FakeSearchServer;
beforeEach(async () => {
  fake = await startFakeSearchServer();
});
afterEach(async () => {
  await fake.close();
});

const signal = new AbortController().signal;
const provider = () =>
  createTavilyProvider({
    apiKey: 'tvly-secret',
    limits: { timeoutMs: 5_000, maxBytes: 100_000 },
    endpoint: `${fake.url}/search`,
  });

describe('Tavily provider', () => {
  it('POSTs the query with the API key and maps the results', async () => {
    fake.script({
      json: tavilyBody([{ title: 'Docs', url: 'https://docs.example/', snippet: 'All the docs.' }]),
    });
    const results = await provider().search('example docs', { limit: 3, signal });
    expect(results).toEqual([{ title: 'Docs', url: 'https://docs.example/', snippet: 'All the docs.' }]);
    const [request] = fake.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/search');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.authorization).toBe('Bearer tvly-secret');
    expect(request?.body).toEqual({
      api_key: 'tvly-secret',
      query: 'example docs',
      max_results: 3,
      search_depth: 'basic',
    });
  });

  it('turns a 429 and a 400 into clear errors', async () => {
    fake.script({ status: 429, json: { detail: 'limit' } }, { status: 400, json: { detail: 'bad' } });
    await expect(provider().search('q', { limit: 3, signal })).rejects.toThrow(
      'web_search (tavily): HTTP 429: rate limit or quota reached; wait before searching again',
    );
    await expect(provider().search('q', { limit: 3, signal })).rejects.toThrow(
      'web_search (tavily): HTTP 400: the search request was refused',
    );
  });

  it('gives up after the timeout', async () => {
    fake.script({ hang: true });
    const slow = createTavilyProvider({
      apiKey: 'k',
      limits: { timeoutMs: 200, maxBytes: 1_000 },
      endpoint: fake.url,
    });
    await expect(slow.search('q', { limit: 1, signal })).rejects.toThrow(
      'web_search (tavily): no answer within 200 ms',
    );
  });

  it('reports an unreachable endpoint', async () => {
    const closed = await startFakeSearchServer();
    const endpoint = closed.url;
    await closed.close();
    const provider = createTavilyProvider({
      apiKey: 'k',
      limits: { timeoutMs: 5_000, maxBytes: 1_000 },
      endpoint,
    });
    await expect(provider.search('q', { limit: 1, signal })).rejects.toThrow(
      'web_search (tavily): request failed (ECONNREFUSED)',
    );
  });
});
