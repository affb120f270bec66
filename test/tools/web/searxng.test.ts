import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSearxngProvider } from '../../../src/tools/web/searxng.js';
import {
  type FakeSearchServer,
  searxngBody,
  startFakeSearchServer,
} from '../../fakes/fake-search-servers.js';

let fake: FakeSearchServer;
beforeEach(async () => {
  fake = await startFakeSearchServer();
});
afterEach(async () => {
  await fake.close();
});

const limits = { timeoutMs: 5_000, maxBytes: 100_000 };
const signal = new AbortController().signal;

describe('SearXNG provider', () => {
  it('asks {base}/search for JSON, keeping a path prefix, and maps the results', async () => {
    fake.script({
      json: searxngBody([
        { title: 'One', url: 'https://one.example/', snippet: 'first hit' },
        { title: 'Two', url: 'https://two.example/', snippet: 'second hit' },
      ]),
    });
    const provider = createSearxngProvider({ baseUrl: `${fake.url}/searx`, limits });
    const results = await provider.search('hello world', { limit: 1, signal });
    expect(results).toEqual([{ title: 'One', url: 'https://one.example/', snippet: 'first hit' }]);
    const [request] = fake.requests;
    expect(request?.path).toBe('/searx/search');
    expect(request?.query.get('q')).toBe('hello world');
    expect(request?.query.get('format')).toBe('json');
  });

  it('accepts results without content', async () => {
    fake.script({ json: { results: [{ title: 'Bare', url: 'https://bare.example/', content: null }] } });
    const provider = createSearxngProvider({ baseUrl: `${fake.url}/`, limits });
    await expect(provider.search('q', { limit: 5, signal })).resolves.toEqual([
      { title: 'Bare', url: 'https://bare.example/', snippet: '' },
    ]);
  });

  it('explains a 403 (JSON output disabled on the instance)', async () => {
    fake.script({ status: 403, raw: 'Forbidden' });
    const provider = createSearxngProvider({ baseUrl: fake.url, limits });
    await expect(provider.search('q', { limit: 5, signal })).rejects.toThrow(
      "add 'json' to search.formats in its settings.yml",
    );
  });
});
