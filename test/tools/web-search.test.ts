import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isHermesError } from '../../src/errors/hermes-error.js';
import { createSearchProvider } from '../../src/tools/web/create-search-provider.js';
import { webSearchTool } from '../../src/tools/web-search.js';
import {
  braveBody,
  type FakeSearchServer,
  searxngBody,
  startFakeSearchServer,
  tavilyBody,
} from '../fakes/fake-search-servers.js';
import { makeTempHome, testServices } from '../helpers/test-config.js';
import { configWith, toolContext } from './web/web-test-kit.js';

let home: { home: string; cleanup: () => void };
let fake: FakeSearchServer;

beforeEach(async () => {
  home = makeTempHome();
  fake = await startFakeSearchServer();
});
afterEach(async () => {
  await fake.close();
  home.cleanup();
});

const hits = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    title: `Result ${index + 1}`,
    url: `https://example.org/${index + 1}`,
    snippet: `snippet ${index + 1}`,
  }));

describe('web_search availability', () => {
  it.each([
    [{}, 'web_search: no search provider configured; set web.search.provider'],
    [{ provider: 'brave' }, 'web_search: web.search.provider is brave but web.search.api_key is not set'],
    [{ provider: 'tavily' }, 'web_search: web.search.provider is tavily but web.search.api_key is not set'],
    [
      { provider: 'searxng' },
      'web_search: web.search.provider is searxng but web.search.searxng_url is not set',
    ],
  ])('is unavailable with search config %j', (search, reason) => {
    const config = configWith(home.home, { web: { search } });
    const check = webSearchTool.checkFn?.(testServices(config));
    expect(check).toEqual({ ok: false, reason: expect.stringContaining(reason) });
  });

  it.each([
    { provider: 'brave', api_key: 'k' },
    { provider: 'tavily', api_key: 'k' },
    { provider: 'searxng', searxng_url: 'http://127.0.0.1:8888' },
  ])('is available with %j', (search) => {
    const config = configWith(home.home, { web: { search } });
    expect(webSearchTool.checkFn?.(testServices(config))).toBe(true);
  });

  it('refuses to run unconfigured, with the same reason', async () => {
    const config = configWith(home.home, {});
    const failure = await Promise.resolve(
      webSearchTool.handler(webSearchTool.parameters.parse({ query: 'x' }), toolContext(config)),
    ).catch((error: unknown) => error);
    expect(isHermesError(failure, 'search_failed')).toBe(true);
    expect((failure as Error).message).toContain('no search provider configured');
  });
});

describe('web_search', () => {
  it('is read-only in the web toolset', () => {
    expect(webSearchTool).toMatchObject({ name: 'web_search', toolset: 'web', readOnly: true });
  });

  it('searches the configured SearXNG instance, limited to web.search.max_results by default', async () => {
    fake.respond = () => ({ json: searxngBody(hits(10)) });
    const config = configWith(home.home, {
      web: { search: { provider: 'searxng', searxng_url: fake.url, max_results: 3 } },
    });
    const run = (args: unknown) =>
      webSearchTool.handler(webSearchTool.parameters.parse(args), toolContext(config));

    const byDefault = (await run({ query: 'typescript strict' })) as { provider: string; results: unknown[] };
    expect(byDefault.provider).toBe('searxng');
    expect(byDefault.results).toHaveLength(3);
    expect(byDefault.results[0]).toEqual({
      title: 'Result 1',
      url: 'https://example.org/1',
      snippet: 'snippet 1',
    });
    expect(fake.requests[0]?.query.get('q')).toBe('typescript strict');

    const limited = (await run({ query: 'q', limit: 7 })) as { results: unknown[] };
    expect(limited.results).toHaveLength(7);
  });

  it('validates its parameters', () => {
    expect(() => webSearchTool.parameters.parse({ query: '   ' })).toThrow();
    expect(() => webSearchTool.parameters.parse({ query: 'x', limit: 0 })).toThrow();
  });

  it('builds each keyed provider from config (endpoints overridable only by the factory)', async () => {
    fake.script({ json: braveBody(hits(1)) }, { json: tavilyBody(hits(2)) });
    const signal = new AbortController().signal;
    const brave = configWith(home.home, { web: { search: { provider: 'brave', api_key: 'bk' } } });
    const braveChoice = createSearchProvider(brave.web, { brave: `${fake.url}/brave` });
    if (!braveChoice.ok) throw new Error(braveChoice.reason);
    await expect(braveChoice.provider.search('q', { limit: 5, signal })).resolves.toHaveLength(1);
    expect(fake.requests[0]?.headers['x-subscription-token']).toBe('bk');

    const tavily = configWith(home.home, { web: { search: { provider: 'tavily', api_key: 'tk' } } });
    const tavilyChoice = createSearchProvider(tavily.web, { tavily: `${fake.url}/tavily` });
    if (!tavilyChoice.ok) throw new Error(tavilyChoice.reason);
    await expect(tavilyChoice.provider.search('q', { limit: 5, signal })).resolves.toHaveLength(2);
    expect(fake.requests[1]?.body).toMatchObject({ api_key: 'tk' });
  });
});
