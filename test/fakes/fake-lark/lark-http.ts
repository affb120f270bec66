import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ApiAnswer, type ApiRequest, fieldInvalid, larkError } from './api-answer.js';
import { larkIds } from './lark-ids.js';
import type { FakeResource, LarkState, RecordedCall } from './lark-state.js';
import {
  answerRoute,
  checkAuth,
  matchRoute,
  type OpenApiContext,
  UNAUTHENTICATED,
} from './open-api-routes.js';
import type { FakeLarkWs } from './ws-server.js';

const MAX_BODY_BYTES = 32 * 1_048_576;

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

async function* zeros(size: number): AsyncGenerator<Buffer> {
  const chunk = Buffer.alloc(64 * 1024);
  for (let sent = 0; sent < size; sent += chunk.length) {
    yield size - sent >= chunk.length ? chunk : chunk.subarray(0, size - sent);
  }
}

async function writeBinary(res: ServerResponse, resource: FakeResource): Promise<void> {
  res.writeHead(200, {
    'content-type': resource.contentType,
    'content-disposition': `attachment; filename="${resource.fileName}"`,
    'x-tt-logid': larkIds.logId(),
    ...(resource.omitContentLength ? {} : { 'content-length': resource.size }),
  });
  if (resource.bytes !== undefined) {
    res.end(resource.bytes);
    return;
  }
  // The client may stop reading once it reaches its own cap; that is not an error here.
  await pipeline(Readable.from(zeros(resource.size)), res).catch(() => undefined);
}

function write(res: ServerResponse, answer: ApiAnswer, call: RecordedCall): Promise<void> | undefined {
  if (answer.kind === 'binary') {
    call.status = 200;
    call.code = undefined;
    return writeBinary(res, answer.resource);
  }
  const logId = larkIds.logId();
  if (answer.kind === 'raw') {
    call.status = answer.status;
    res.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8', 'x-tt-logid': logId });
    res.end(answer.body);
    return undefined;
  }
  call.status = answer.status;
  call.code = typeof answer.body['code'] === 'number' ? answer.body['code'] : undefined;
  res.writeHead(answer.status, {
    'content-type': 'application/json; charset=utf-8',
    'x-tt-logid': logId,
    ...answer.headers,
  });
  res.end(JSON.stringify(answer.body));
  return undefined;
}

/**
 * The fake's HTTP side: records every call, applies planned failures (status, delay, dropped
 * connection before or after the call took effect), checks the tenant token, then answers.
 */
export async function startLarkHttp(
  ctx: OpenApiContext,
  state: LarkState,
  ws: () => FakeLarkWs,
): Promise<{ server: Server; origin: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const closing = new AbortController();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const matched = matchRoute(method, url.pathname);
    const body = rawBody === undefined ? undefined : parseJson(rawBody);
    const call: RecordedCall = {
      route: matched.route,
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
      rawBody: rawBody ?? Buffer.alloc(0),
      status: 0,
      code: undefined,
    };
    state.calls.push(call);
    if (rawBody === undefined) {
      write(res, larkError(413, 99992402, 'request body too large'), call);
      return;
    }
    const failure = state.failures.take(matched.route);
    if (failure?.delayMs !== undefined) {
      await sleep(failure.delayMs, undefined, { signal: closing.signal }).catch(() => undefined);
    }
    if (failure !== undefined && 'drop' in failure && failure.drop === 'before') {
      req.socket.destroy();
      return;
    }
    let answer: ApiAnswer;
    if (failure !== undefined && 'rawBody' in failure) {
      answer = { kind: 'raw', status: failure.status, body: failure.rawBody };
    } else if (failure !== undefined && 'code' in failure) {
      answer = larkError(failure.status, failure.code, failure.msg, failure.headers);
    } else {
      const request: ApiRequest = {
        method,
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        rawBody,
        body,
      };
      const jsonExpected = method !== 'GET' && matched.route !== 'im.image.create' && rawBody.length > 0;
      const denied = UNAUTHENTICATED.has(matched.route) ? undefined : checkAuth(ctx, request);
      if (denied !== undefined) answer = denied;
      else if (jsonExpected && body === undefined) answer = fieldInvalid('request body is not JSON');
      else answer = await answerRoute(ctx, request, matched);
    }
    if (failure !== undefined && 'drop' in failure) {
      req.socket.destroy();
      return;
    }
    await write(res, answer, call);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug in the fake, not a Lark answer: say so in the body.
      if (!res.headersSent) res.writeHead(500).end(`fake-lark failed: ${String(error)}`);
      else res.destroy();
    });
  });
  server.on('upgrade', (req, socket: Socket, head: Buffer) => {
    if (!ws().handleUpgrade(req, socket, head)) socket.destroy();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    server,
    origin: `http://127.0.0.1:${port}`,
    async close() {
      closing.abort();
      for (const socket of sockets) socket.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
