import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import OpenAI from 'openai';
import { Agent } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/gateway/turn/create-model-client.js';
import { closeModelFetchAgent, createModelFetch } from '../../src/lib/create-model-fetch.js';
import { createVisionClient } from '../../src/tools/vision/ask-vision-model.js';
import { makeTempHome, testConfig } from '../helpers/test-config.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

interface TestServer {
  readonly url: string;
  readonly requests: { method: string; url: string; headers: IncomingMessage['headers']; body: Buffer }[];
  close(): Promise<void>;
}

const servers: TestServer[] = [];

async function startServer(handler: Handler): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const handle: TestServer = {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
  servers.push(handle);
  return handle;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  await closeModelFetchAgent();
  await closeModelFetchAgent(); // idempotent
});

const modelFetch = createModelFetch();

function sseChunk(content: string): string {
  const chunk = {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'test-model',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** Resolves when called; lets a handler hold the rest of a response until the test has seen the start. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolveGate) => {
    open = resolveGate;
  });
  return { wait, open };
}

/**
 * The first SSE event must be readable while the server still holds the rest back (the body
 * streams, it is not buffered); then `rest` lets the server finish and the second one follows.
 */
async function expectStreamedInTwoParts(response: Response, rest: { open: () => void }): Promise<void> {
  const reader = response.body!.getReader();
  const first = await reader.read();
  expect(Buffer.from(first.value!).toString()).toBe('data: first\n\n');
  rest.open();
  let tail = '';
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    tail += Buffer.from(part.value).toString();
  }
  expect(tail).toBe('data: second\n\n');
}

async function rejection(run: Promise<unknown>): Promise<Error & { cause?: unknown }> {
  try {
    await run;
  } catch (error) {
    return error as Error & { cause?: unknown };
  }
  throw new Error('expected a rejection');
}

describe('createModelFetch: requests', () => {
  it('sends method, headers of every shape and a string or byte body, and advertises no encoding', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const asHeaders = new Headers({ 'x-one': '1', 'content-type': 'application/json' });
    await modelFetch(`${server.url}/a`, { method: 'post', headers: asHeaders, body: '{"a":1}' });
    await modelFetch(`${server.url}/b`, {
      method: 'PUT',
      headers: { 'x-two': ['2a', '2b'], 'x-skip': undefined } as unknown as Record<string, string>,
      body: new Uint8Array([104, 105]),
    });
    await modelFetch(`${server.url}/c`, { method: 'POST', headers: [['x-three', '3']], body: 'plain' });
    await modelFetch(new URL(`${server.url}/d?q=1`));

    const [a, b, c, d] = server.requests;
    expect(a).toMatchObject({ method: 'POST', url: '/a', body: Buffer.from('{"a":1}') });
    expect(a?.headers).toMatchObject({
      'x-one': '1',
      'content-type': 'application/json',
      'content-length': '7',
    });
    expect(a?.headers['accept-encoding']).toBeUndefined();
    expect(b).toMatchObject({ method: 'PUT', body: Buffer.from('hi') });
    expect(b?.headers['x-two']).toBe('2a, 2b');
    expect(b?.headers['x-skip']).toBeUndefined();
    expect(c?.headers).toMatchObject({ 'x-three': '3', 'content-type': 'text/plain;charset=UTF-8' });
    expect(d).toMatchObject({ method: 'GET', url: '/d?q=1' });
  });

  it('uses a dispatcher it is given', async () => {
    const server = await startServer((_req, res) => res.end('pooled'));
    const agent = new Agent();
    let dispatched = 0;
    const counting = agent.compose((dispatch) => (opts, handler) => {
      dispatched += 1;
      return dispatch(opts, handler);
    });
    const response = await createModelFetch({ dispatcher: counting })(server.url);
    expect(await response.text()).toBe('pooled');
    expect(dispatched).toBe(1);
    await agent.close();
  });

  it('leaves what it does not take to fetch: a FormData body arrives as multipart', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const form = new FormData();
    form.append('purpose', 'vision');
    form.append('file', new Blob(['file-bytes'], { type: 'text/plain' }), 'a.txt');
    const response = await modelFetch(`${server.url}/upload`, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    const [upload] = server.requests;
    expect(upload?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const text = upload?.body.toString() ?? '';
    expect(text).toContain('name="purpose"');
    expect(text).toContain('filename="a.txt"');
    expect(text).toContain('file-bytes');
  });

  it('rejects what fetch rejects, with the same kind of error', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const bad = await rejection(modelFetch(server.url, { headers: { 'x-bad': 'a\nb' } }));
    expect(bad).toBeInstanceOf(TypeError);
    const getWithBody = await rejection(modelFetch(server.url, { method: 'GET', body: 'x' }));
    expect(getWithBody).toBeInstanceOf(TypeError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('createModelFetch: responses', () => {
  it('streams the body chunk by chunk before the response ends', async () => {
    const rest = gate();
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      void rest.wait.then(() => res.end('data: second\n\n'));
    });
    const response = await modelFetch(`${server.url}/stream`, { method: 'POST', body: '{}' });
    await expectStreamedInTwoParts(response, rest);
  });

  it('gives status, status text and headers, repeated ones joined', async () => {
    const server = await startServer((_req, res) => {
      res.setHeader('x-multi', ['a', 'b']);
      res.setHeader('x-request-id', 'req-1');
      res.writeHead(201, 'Made', { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    const response = await modelFetch(server.url, { method: 'POST', body: '{}' });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.ok).toBe(true);
    expect(response.headers.get('x-multi')).toBe('a, b');
    expect(response.headers.get('x-request-id')).toBe('req-1');
    expect(await response.json()).toEqual({ ok: true });
  });

  it('answers null-body statuses and HEAD with no body', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/204') res.writeHead(204).end();
      else if (req.url === '/304') res.writeHead(304).end();
      else res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5' }).end('hello');
    });
    const noContent = await modelFetch(`${server.url}/204`, { method: 'DELETE' });
    expect(noContent.status).toBe(204);
    expect(noContent.body).toBeNull();
    const notModified = await modelFetch(`${server.url}/304`);
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBeNull();
    const head = await modelFetch(`${server.url}/head`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    expect(head.headers.get('content-length')).toBe('5');
    // The connection is still good afterwards.
    expect(await (await modelFetch(`${server.url}/after`)).text()).toBe('hello');
  });

  it('decodes gzip, deflate (wrapped and raw) and br, and drops content-encoding and content-length', async () => {
    const json = JSON.stringify({ id: 'x', choices: [{ message: { content: 'compressed' } }] });
    const bodies: Record<string, [string, Buffer]> = {
      '/gzip': ['gzip', gzipSync(json)],
      '/deflate': ['deflate', deflateSync(json)],
      '/deflate-raw': ['deflate', deflateRawSync(json)],
      '/br': ['br', brotliCompressSync(json)],
    };
    const server = await startServer((req, res) => {
      const [encoding, body] = bodies[req.url ?? ''] ?? ['identity', Buffer.from(json)];
      res
        .writeHead(200, {
          'content-type': 'application/json',
          'content-encoding': encoding,
          'content-length': body.length,
        })
        .end(body);
    });
    for (const path of Object.keys(bodies)) {
      const response = await modelFetch(`${server.url}${path}`, { method: 'POST', body: '{}' });
      expect(response.headers.get('content-encoding'), path).toBeNull();
      expect(response.headers.get('content-length'), path).toBeNull();
      expect(await response.json(), path).toEqual(JSON.parse(json));
    }
  });

  it('streams a gzip-encoded SSE body as it arrives', async () => {
    const rest = gate();
    const server = await startServer(async (_req, res) => {
      const { createGzip, constants } = await import('node:zlib');
      const gzip = createGzip();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      gzip.pipe(res);
      gzip.write('data: first\n\n');
      gzip.flush(constants.Z_SYNC_FLUSH);
      await rest.wait;
      gzip.end('data: second\n\n');
    });
    const response = await modelFetch(server.url, { method: 'POST', body: '{}' });
    await expectStreamedInTwoParts(response, rest);
  });

  it('passes an encoding it does not know through untouched', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'x-custom' }).end('raw-bytes');
    });
    const response = await modelFetch(server.url);
    expect(response.headers.get('content-encoding')).toBe('x-custom');
    expect(await response.text()).toBe('raw-bytes');
  });

  it('follows redirects as fetch does', async () => {
    const server = await startServer((req, res, body) => {
      if (req.url === '/v1/chat') res.writeHead(307, { location: '/v2/chat' }).end('moved');
      else if (req.url === '/old') res.writeHead(302, { location: '/new' }).end();
      else res.writeHead(200).end(`${req.method} ${req.url} ${body.toString()}`);
    });
    const kept = await modelFetch(`${server.url}/v1/chat`, { method: 'POST', body: 'payload' });
    expect(await kept.text()).toBe('POST /v2/chat payload');
    const changed = await modelFetch(`${server.url}/old`, { method: 'POST', body: 'payload' });
    expect(await changed.text()).toBe('GET /new ');
    // Each hop is sent once: the fast path's answer is the redirect, fetch goes on from there.
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /v1/chat',
      'POST /v2/chat',
      'POST /old',
      'GET /new',
    ]);
  });

  it('on a redirect drops what fetch drops: the body headers of a 303, credentials on a new origin', async () => {
    const elsewhere = await startServer((_req, res) => res.writeHead(200).end('there'));
    const server = await startServer((req, res) => {
      if (req.url === '/see-other') res.writeHead(303, { location: '/result' }).end();
      else if (req.url === '/away')
        res.writeHead(308, { location: `${elsewhere.url.replace('127.0.0.1', 'localhost')}/in` }).end();
      else if (req.url === '/bad') res.writeHead(307, { location: 'ftp://example.invalid/x' }).end();
      else res.writeHead(200).end('here');
    });
    const headers = {
      authorization: 'Bearer secret',
      cookie: 'c=1',
      'content-type': 'application/json',
      'x-keep': 'yes',
    };
    expect(
      await (await modelFetch(`${server.url}/see-other`, { method: 'PUT', headers, body: '{}' })).text(),
    ).toBe('here');
    const seeOther = server.requests.find((r) => r.url === '/result');
    expect(seeOther?.method).toBe('GET');
    expect(seeOther?.headers['content-type']).toBeUndefined();
    expect(seeOther?.headers['authorization']).toBe('Bearer secret');

    expect(
      await (await modelFetch(`${server.url}/away`, { method: 'POST', headers, body: '{"a":1}' })).text(),
    ).toBe('there');
    const away = elsewhere.requests[0];
    expect([away?.method, away?.url, away?.body.toString()]).toEqual(['POST', '/in', '{"a":1}']);
    expect(away?.headers['authorization']).toBeUndefined();
    expect(away?.headers['cookie']).toBeUndefined();
    expect(away?.headers['content-type']).toBe('application/json');
    expect(away?.headers['x-keep']).toBe('yes');

    const bad = await rejection(modelFetch(`${server.url}/bad`, { method: 'POST', body: '{}' }));
    expect(bad).toBeInstanceOf(TypeError);
    expect(bad.message).toBe('fetch failed');
  });
});

describe('createModelFetch: failures', () => {
  it('rejects with an AbortError when aborted while waiting for headers', async () => {
    const server = await startServer(() => undefined);
    const controller = new AbortController();
    const pending = modelFetch(server.url, { method: 'POST', body: '{}', signal: controller.signal });
    await new Promise((done) => setTimeout(done, 20));
    controller.abort();
    expect((await rejection(pending)).name).toBe('AbortError');
    const already = await rejection(modelFetch(server.url, { signal: AbortSignal.abort() }));
    expect(already.name).toBe('AbortError');
  });

  it('errors a body being read with an AbortError when aborted mid-stream', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
    });
    const controller = new AbortController();
    const response = await modelFetch(server.url, { method: 'POST', body: '{}', signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    const next = reader.read();
    controller.abort();
    expect((await rejection(next)).name).toBe('AbortError');
  });

  it('errors an unread body with an AbortError even when it had fully arrived', async () => {
    const server = await startServer((_req, res) => res.end('all here'));
    const controller = new AbortController();
    const response = await modelFetch(server.url, { signal: controller.signal });
    await new Promise((done) => setTimeout(done, 20));
    controller.abort();
    expect((await rejection(response.text())).name).toBe('AbortError');
  });

  it('rejects a refused connection with TypeError("fetch failed") and the cause', async () => {
    const server = await startServer(() => undefined);
    const url = server.url;
    await server.close();
    const error = await rejection(modelFetch(url, { method: 'POST', body: '{}' }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('fetch failed');
    expect((error.cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('errors the body with TypeError("terminated") when the server drops the connection mid-body', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      setTimeout(() => res.destroy(), 20);
    });
    const response = await modelFetch(server.url);
    const error = await rejection(response.text());
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('terminated');
  });

  it('does not keep a process alive after a call', async () => {
    const server = await startServer((_req, res) => res.end('bye'));
    const script = [
      "import { createModelFetch } from './src/lib/create-model-fetch.ts';",
      `const response = await createModelFetch()(${JSON.stringify(server.url)});`,
      'console.log(await response.text());',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: resolve(import.meta.dirname, '../..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    clearTimeout(timer);
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(output.trim()).toBe('bye');
  });
});

describe('createModelFetch through the OpenAI SDK', () => {
  function client(baseURL: string, options: { maxRetries?: number; timeout?: number } = {}): OpenAI {
    return new OpenAI({
      baseURL: `${baseURL}/v1`,
      apiKey: 'sk-test',
      maxRetries: options.maxRetries ?? 0,
      timeout: options.timeout ?? 10_000,
      logLevel: 'off',
      fetch: createModelFetch(),
    });
  }
  const messages = [{ role: 'user' as const, content: 'hi' }];

  it('streams a chat completion', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseChunk('Hel'));
      setTimeout(() => res.end(`${sseChunk('lo')}data: [DONE]\n\n`), 10);
    });
    const stream = await client(server.url).chat.completions.create({
      model: 'test-model',
      messages,
      stream: true,
    });
    const parts: string[] = [];
    for await (const chunk of stream) parts.push(chunk.choices[0]?.delta.content ?? '');
    expect(parts).toEqual(['Hel', 'lo']);
    const [sent] = server.requests;
    expect(sent?.headers['authorization']).toBe('Bearer sk-test');
    expect(JSON.parse(sent?.body.toString() ?? '{}')).toMatchObject({ model: 'test-model', stream: true });
  });

  it('retries a 5xx as maxRetries allows', async () => {
    let calls = 0;
    const server = await startServer((_req, res) => {
      calls += 1;
      if (calls < 3) {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after-ms': '1' });
        res.end('{"error":{"message":"busy"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'c',
          object: 'chat.completion',
          created: 1,
          model: 'test-model',
          choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }],
        }),
      );
    });
    const completion = await client(server.url, { maxRetries: 2 }).chat.completions.create({
      model: 'test-model',
      messages,
    });
    expect(completion.choices[0]?.message.content).toBe('done');
    expect(calls).toBe(3);
    const failing = await startServer((_req, res) => res.writeHead(500).end('{"error":{"message":"down"}}'));
    const error = await rejection(client(failing.url).chat.completions.create({ model: 'm', messages }));
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
  });

  it('reports APIUserAbortError when the caller aborts, and ends a stream quietly as with fetch', async () => {
    const held = await startServer(() => undefined);
    const controller = new AbortController();
    const pending = client(held.url).chat.completions.create(
      { model: 'm', messages, stream: true },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 20);
    expect(await rejection(pending)).toBeInstanceOf(OpenAI.APIUserAbortError);

    const open = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseChunk('one'));
    });
    const midway = new AbortController();
    const stream = await client(open.url).chat.completions.create(
      { model: 'm', messages, stream: true },
      { signal: midway.signal },
    );
    const parts: string[] = [];
    for await (const chunk of stream) {
      parts.push(chunk.choices[0]?.delta.content ?? '');
      midway.abort();
    }
    expect(parts).toEqual(['one']);
  });

  it('turns a timeout into APIConnectionTimeoutError and a refused connection into APIConnectionError', async () => {
    const held = await startServer(() => undefined);
    const timedOut = await rejection(
      client(held.url, { timeout: 50 }).chat.completions.create({ model: 'm', messages }),
    );
    expect(timedOut).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);

    const gone = await startServer(() => undefined);
    const url = gone.url;
    await gone.close();
    const refused = await rejection(
      client(url, { maxRetries: 1 }).chat.completions.create({ model: 'm', messages }),
    );
    expect(refused).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(refused).not.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });
});

describe('the model clients use it', () => {
  it('createModelClient and createVisionClient send through createModelFetch (no accept-encoding, unlike fetch)', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'c',
          object: 'chat.completion',
          created: 1,
          model: 'test-model',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        }),
      );
    });
    const home = makeTempHome();
    try {
      const config = testConfig(home.home, {
        OPENAI_BASE_URL: `${server.url}/v1`,
        OPENAI_API_KEY: 'sk-test',
      });
      const request = { model: 'test-model', messages: [{ role: 'user' as const, content: 'hi' }] };
      await createModelClient(config)!.chat.completions.create(request);
      await createVisionClient(config.model).chat.completions.create(request);
      await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body: '{}' });
      const encodings = server.requests.map((sent) => sent.headers['accept-encoding']);
      expect(encodings.slice(0, 2)).toEqual([undefined, undefined]);
      expect(encodings[2]).toBeDefined(); // the global fetch would have advertised gzip
    } finally {
      home.cleanup();
    }
  });
});
