import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import { createBraveProvider } from '../../../src/tools/web/brave.js';
import { braveBody, type FakeSearchServer, startFakeSearchServer } from '../../fakes/fake-search-servers.js';

let fake: FakeSearchServer;
beforeEach(async () => {
  fake = await startFakeSearchServer();
});
afterEach(async () => {
  await fake.close();
});

const limits = { timeoutMs: 5_000, maxBytes: 100_000 };
const signal = new AbortController().signal;
const provider = () =>
  createBraveProvider({ apiKey: 'brave-key-123', limits, endpoint: `${fake.url}/res/v1/web/search` });

describe('Brave Search provider', () => {
  it('sends the query, count and subscription token, and maps the results', async () => {
    fake.script({
      json: braveBody([
        {
          title: 'Node.js <strong>20</strong>',
          url: 'https://nodejs.org/',
          snippet: 'The <strong>LTS</strong> &amp; more',
        },
        { title: 'Second', url: 'https://example.org/2', snippet: 'two' },
        { title: 'Third', url: 'https://example.org/3', snippet: 'three' },
      ]),
    });
    const results = await provider().search('node 20 lts', { limit: 2, signal });
    expect(results).toEqual([
      { title: 'Node.js 20', url: 'https://nodejs.org/', snippet: 'The LTS & more' },
      { title: 'Second', url: 'https://example.org/2', snippet: 'two' },
    ]);
    const [request] = fake.requests;
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe('/res/v1/web/search');
    expect(request?.query.get('q')).toBe('node 20 lts');
    expect(request?.query.get('count')).toBe('2');
    expect(request?.headers['x-subscription-token']).toBe('brave-key-123');
    expect(request?.headers.accept).toBe('application/json');
  });

  it('caps count at the API maximum and tolerates an answer without web results', async () => {
    fake.script({ json: { type: 'search' } });
    await expect(provider().search('q', { limit: 50, signal })).resolves.toEqual([]);
    expect(fake.requests[0]?.query.get('count')).toBe('20');
  });

  it.each([
    [429, { 'retry-after': '3' }, 'HTTP 429: rate limit or quota reached; retry after 3 s'],
    [401, {}, 'HTTP 401: the API key was rejected; check web.search.api_key'],
    [503, {}, 'HTTP 503: the search provider failed'],
  ])('turns HTTP %i into a clear error', async (status, headers, message) => {
    fake.script({ status, headers, json: { error: 'nope' } });
    const failure = await provider()
      .search('q', { limit: 5, signal })
      .catch((error: unknown) => error);
    expect(isHermesError(failure, 'search_failed')).toBe(true);
    expect((failure as Error).message).toBe(
      `web_search (brave): ${message}${status === 503 ? '; try again later' : ''}`,
    );
    expect((failure as Error).message).not.toContain('brave-key-123');
  });

  it('rejects answers that are not JSON, have the wrong shape, or are too large', async () => {
    fake.script(
      { raw: '<html>oops</html>' },
      { json: { web: { results: [{ title: 1 }] } } },
      { json: { web: { results: [], padding: 'z'.repeat(200) } } },
    );
    const small = createBraveProvider({
      apiKey: 'k',
      limits: { ...limits, maxBytes: 100 },
      endpoint: fake.url,
    });
    await expect(provider().search('q', { limit: 5, signal })).rejects.toThrow('answer is not JSON');
    await expect(provider().search('q', { limit: 5, signal })).rejects.toThrow(
      'did not have the expected shape',
    );
    await expect(small.search('q', { limit: 5, signal })).rejects.toThrow('larger than 100 bytes');
  });
});
