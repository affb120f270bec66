import { afterEach, describe, expect, it } from 'vitest';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import { type SafeFetchOptions, safeFetch } from '../../../src/tools/web/safe-fetch.js';
import { createSsrfGuard, type ResolveHost } from '../../../src/tools/web/ssrf-guard.js';
import { startServer, type TestServer } from './web-test-kit.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function server(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const started = await startServer(handler);
  servers.push(started);
  return started;
}

function options(allowPrivate: readonly string[], extra: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return {
    guard: createSsrfGuard({ allowPrivate }),
    timeoutMs: 5_000,
    maxBytes: 10_000,
    maxRedirects: 3,
    signal: new AbortController().signal,
    accept: '*/*',
    ...extra,
  };
}

async function failure(run: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await run;
  } catch (error) {
    if (isHermesError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected the fetch to fail');
}

const text = (body: Uint8Array | undefined) => Buffer.from(body ?? new Uint8Array()).toString('utf8');

describe('safeFetch and the SSRF guard', () => {
  it('fetches a loopback server only when the allowlist names it', async () => {
    const a = await server((_req, res) => res.end('hello from A'));
    const allowed = await safeFetch(a.url('/page'), options([`127.0.0.1:${a.port}`]));
    expect(allowed.status).toBe(200);
    expect(text(allowed.body)).toBe('hello from A');
    expect(allowed.finalUrl).toBe(a.url('/page'));

    const refused = await failure(safeFetch(a.url('/page'), options([])));
    expect(refused.code).toBe('ssrf_refused');
    expect(refused.message).toContain('loopback');
    expect(a.seen).toHaveLength(1);
  });

  it.each([
    ['an IPv4 loopback literal', (port: number) => `http://127.0.0.1:${port}/secret`],
    ['a name that resolves to loopback', (port: number) => `http://localhost:${port}/secret`],
    ['an IPv6 loopback literal', (port: number) => `http://[::1]:${port}/secret`],
    ['an IPv4-mapped loopback literal', (port: number) => `http://[::ffff:127.0.0.1]:${port}/secret`],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
  ])('refuses a redirect from an allowed server to %s', async (_name, target) => {
    const b = await server((_req, res) => res.end('internal secret'));
    const a = await server((_req, res) => {
      res.writeHead(302, { location: target(b.port) });
      res.end();
    });
    const refused = await failure(safeFetch(a.url('/start'), options([`127.0.0.1:${a.port}`])));
    expect(refused.code).toBe('ssrf_refused');
    expect(a.seen).toHaveLength(1);
    expect(b.seen).toHaveLength(0);
  });

  it('follows allowed redirects hop by hop and reports the final URL', async () => {
    const a = await server((req, res) => {
      if (req.url === '/one') res.writeHead(301, { location: '/two' }).end();
      else if (req.url === '/two') res.writeHead(307, { location: `http://127.0.0.1:${a.port}/three` }).end();
      else res.end(`at ${req.url}`);
    });
    const response = await safeFetch(a.url('/one'), options([`127.0.0.1:${a.port}`]));
    expect(text(response.body)).toBe('at /three');
    expect(response.finalUrl).toBe(a.url('/three'));
  });

  it('gives up after max_redirects', async () => {
    const a = await server((_req, res) => res.writeHead(302, { location: '/again' }).end());
    const refused = await failure(
      safeFetch(a.url('/'), options([`127.0.0.1:${a.port}`], { maxRedirects: 2 })),
    );
    expect(refused.code).toBe('fetch_failed');
    expect(refused.message).toContain('too many redirects');
    expect(a.seen).toHaveLength(3);
  });

  it('dials the address the guard checked, keeping the Host header (no second lookup)', async () => {
    const a = await server((req, res) => res.end(`host=${req.headers.host}`));
    let lookups = 0;
    const resolveHost: ResolveHost = async (hostname) => {
      lookups += 1;
      if (hostname !== 'app.test') throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
      return ['127.0.0.1'];
    };
    const guard = createSsrfGuard({ allowPrivate: [`app.test:${a.port}`], resolveHost });
    const response = await safeFetch(`http://app.test:${a.port}/`, { ...options([]), guard });
    expect(text(response.body)).toBe(`host=app.test:${a.port}`);
    expect(lookups).toBe(1);

    const unlisted = createSsrfGuard({ allowPrivate: [], resolveHost });
    const refused = await failure(
      safeFetch(`http://app.test:${a.port}/`, { ...options([]), guard: unlisted }),
    );
    expect(refused.code).toBe('ssrf_refused');
  });

  it('stops reading at the byte cap, even for an endless body', async () => {
    const a = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(4096);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) {
          // keep writing until the socket pushes back
        }
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const response = await safeFetch(a.url('/'), options([`127.0.0.1:${a.port}`], { maxBytes: 50_000 }));
    expect(response.truncated).toBe(true);
    expect(response.body?.byteLength).toBe(50_000);
  });

  it('times out a server that never answers', async () => {
    const a = await server(() => {
      // never responds
    });
    const refused = await failure(
      safeFetch(a.url('/'), options([`127.0.0.1:${a.port}`], { timeoutMs: 200 })),
    );
    expect(refused.code).toBe('fetch_failed');
    expect(refused.message).toContain('timed out after 200 ms');
  });

  it("rethrows the caller's abort", async () => {
    const controller = new AbortController();
    // The request reaches the server, which never answers; the turn is stopped meanwhile.
    const a = await server(() => controller.abort(new Error('turn stopped')));
    const pending = safeFetch(a.url('/'), options([`127.0.0.1:${a.port}`], { signal: controller.signal }));
    await expect(pending).rejects.toThrow('turn stopped');
  });

  it('skips the body of error statuses and of unwanted types', async () => {
    const a = await server((req, res) => {
      if (req.url === '/missing') res.writeHead(404, { 'content-type': 'text/html' }).end('nope');
      else res.writeHead(200, { 'content-type': 'application/pdf; charset=binary' }).end('%PDF-1.7');
    });
    const allow = [`127.0.0.1:${a.port}`];
    const missing = await safeFetch(a.url('/missing'), options(allow));
    expect(missing).toMatchObject({ status: 404, body: undefined, mime: 'text/html' });
    const pdf = await safeFetch(
      a.url('/doc'),
      options(allow, { wantBody: (mime) => mime.startsWith('text/') }),
    );
    expect(pdf).toMatchObject({ status: 200, body: undefined, mime: 'application/pdf', charset: 'binary' });
  });

  it('reports connection failures as fetch errors', async () => {
    const a = await server((_req, res) => res.end());
    const port = a.port;
    await a.close();
    const refused = await failure(safeFetch(`http://127.0.0.1:${port}/`, options([`127.0.0.1:${port}`])));
    expect(refused.code).toBe('fetch_failed');
    expect(refused.message).toContain('ECONNREFUSED');
  });
});
