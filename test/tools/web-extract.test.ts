import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config-schema.js';
import type { ExtractedPage } from '../../src/tools/web/extract-page.js';
import { webExtractTool } from '../../src/tools/web-extract.js';
import { makeTempHome } from '../helpers/test-config.js';
import { configWith, startServer, type TestServer, TINY_PNG, toolContext } from './web/web-test-kit.js';

let home: { home: string; cleanup: () => void };
let site: TestServer;
let internal: TestServer;

const ARTICLE = `<!doctype html><html><head><title>Release notes</title></head><body>
<nav>Menu</nav><main><h1>Version 2</h1><p>${'The new version is faster. '.repeat(12)}</p></main></body></html>`;

beforeEach(async () => {
  home = makeTempHome();
  internal = await startServer((_req, res) => res.end('internal admin page'));
  site = await startServer((req, res) => {
    const route = req.url ?? '/';
    if (route === '/article') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
    else if (route === '/latin1') {
      res
        .writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' })
        .end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    } else if (route === '/data.json')
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":[1,2]}');
    else if (route === '/readme.txt')
      res.writeHead(200, { 'content-type': 'text/plain' }).end('  plain words  ');
    else if (route === '/paper.pdf')
      res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.7');
    else if (route === '/pic.png') res.writeHead(200, { 'content-type': 'image/png' }).end(TINY_PNG);
    else if (route === '/unlabelled') res.end('<!DOCTYPE html><title>Sniffed</title><p>body</p>');
    else if (route === '/long') res.writeHead(200, { 'content-type': 'text/plain' }).end('y'.repeat(5_000));
    else if (route === '/to-internal') res.writeHead(302, { location: internal.url('/admin') }).end();
    else if (route === '/to-article') res.writeHead(303, { location: '/article' }).end();
    else if (route === '/hang') return;
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not here</h1>');
  });
});

afterEach(async () => {
  await Promise.all([site.close(), internal.close()]);
  home.cleanup();
});

function config(web: Record<string, unknown> = {}): Config {
  return configWith(home.home, { web: { allow_private: [`127.0.0.1:${site.port}`], ...web } });
}

async function extract(urls: string[], cfg = config(), signal?: AbortSignal): Promise<ExtractedPage[]> {
  const args = webExtractTool.parameters.parse({ urls });
  const result = (await webExtractTool.handler(args, toolContext(cfg, { signal }))) as {
    results: ExtractedPage[];
  };
  return result.results;
}

describe('web_extract', () => {
  it('is a read-only tool in the web toolset', () => {
    expect(webExtractTool).toMatchObject({ name: 'web_extract', toolset: 'web', readOnly: true });
    expect(webExtractTool.checkFn).toBeUndefined();
  });

  it('returns readable markdown with title and final URL', async () => {
    const [page] = await extract([site.url('/to-article')]);
    expect(page).toMatchObject({
      url: site.url('/to-article'),
      final_url: site.url('/article'),
      title: 'Release notes',
    });
    expect(page?.content).toContain('# Version 2');
    expect(page?.content).not.toContain('Menu');
    expect(page?.error).toBeUndefined();
  });

  it('refuses the local server without an allowlist entry', async () => {
    const cfg = configWith(home.home, {});
    const [page] = await extract([site.url('/article')], cfg);
    expect(page?.content).toBe('');
    expect(page?.error).toMatch(/refused 127\.0\.0\.1:\d+: 127\.0\.0\.1 is a loopback address/);
    expect(site.seen).toHaveLength(0);
  });

  it('refuses a redirect from an allowed server to another loopback port', async () => {
    const [page] = await extract([site.url('/to-internal')]);
    expect(page?.error).toContain(`refused 127.0.0.1:${internal.port}`);
    expect(page?.content).toBe('');
    expect(internal.seen).toHaveLength(0);
  });

  it('refuses non-http schemes and metadata endpoints without fetching', async () => {
    const pages = await extract([
      'file:///etc/passwd',
      'http://169.254.169.254/latest/meta-data/',
      'not a url',
    ]);
    expect(pages.map((page) => page.error)).toEqual([
      expect.stringContaining('only http and https'),
      expect.stringContaining('cloud metadata'),
      expect.stringContaining('not a valid absolute URL'),
    ]);
  });

  it('passes text and JSON through, decodes charsets, and sniffs unlabelled HTML', async () => {
    const pages = await extract([
      site.url('/data.json'),
      site.url('/readme.txt'),
      site.url('/latin1'),
      site.url('/unlabelled'),
    ]);
    expect(pages.map((page) => page.content)).toEqual(['{"a":[1,2]}', 'plain words', 'café', 'body']);
    expect(pages[3]?.title).toBe('Sniffed');
  });

  it('explains unsupported content types and HTTP errors per URL; other URLs still succeed', async () => {
    const pages = await extract([
      site.url('/paper.pdf'),
      site.url('/pic.png'),
      site.url('/nothing'),
      site.url('/article'),
    ]);
    expect(pages[0]?.error).toBe(
      'unsupported content type application/pdf: web_extract reads HTML, plain text and JSON',
    );
    expect(pages[1]?.error).toContain('use vision_analyze');
    expect(pages[2]?.error).toBe('HTTP 404 Not Found');
    expect(pages[3]?.error).toBeUndefined();
    expect(pages[3]?.content).toContain('Version 2');
  });

  it('caps content at web.max_chars_per_url and downloads at web.max_bytes, saying so', async () => {
    const [chars] = await extract([site.url('/long')], config({ max_chars_per_url: 100 }));
    expect(
      chars?.content.startsWith(`${'y'.repeat(100)}\n\n[content truncated: first 100 of 5000 characters`),
    ).toBe(true);
    const [bytes] = await extract([site.url('/long')], config({ max_bytes: 1_000 }));
    expect(bytes?.content).toContain(
      `${'y'.repeat(1_000)}\n\n[download stopped at 1000 bytes (web.max_bytes)`,
    );
  });

  it('times out one URL without failing the others', async () => {
    const pages = await extract([site.url('/hang'), site.url('/readme.txt')], config({ timeout_ms: 300 }));
    expect(pages[0]?.error).toContain('timed out after 300 ms');
    expect(pages[1]?.content).toBe('plain words');
  });

  it('aborts everything when the turn is stopped', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopped by user'));
    await expect(
      extract([site.url('/hang'), site.url('/article')], config(), controller.signal),
    ).rejects.toThrow('stopped by user');
  });

  it('accepts at most 5 URLs and fetches duplicates once', async () => {
    expect(() => webExtractTool.parameters.parse({ urls: ['a', 'b', 'c', 'd', 'e', 'f'] })).toThrow();
    expect(() => webExtractTool.parameters.parse({ urls: [] })).toThrow();
    const pages = await extract([site.url('/readme.txt'), site.url('/readme.txt')]);
    expect(pages).toHaveLength(1);
    expect(site.seen).toHaveLength(1);
  });
});
