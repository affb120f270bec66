import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { type ApiAnswer, type ApiRequest, isRecord, stringField } from './api-answer.js';
import { decodeFrame, encodeFrame, FRAME_CONTROL, FRAME_DATA, type WsFrame } from './ws-frames.js';

/** What discovery hands the SDK (seconds), echoed in every pong. Lark's defaults: 120, -1, 120, 30. */
export interface WsClientConfig {
  readonly PingInterval: number;
  readonly ReconnectCount: number;
  readonly ReconnectInterval: number;
  readonly ReconnectNonce: number;
}

/** How the SDK answered a pushed event. */
export type WsAck =
  | {
      readonly acknowledged: true;
      /** The ack payload's code: 200, or 500 when the SDK's handler threw. */
      readonly code: number;
      /** The handler's return value (the SDK sends it base64-encoded JSON), if any. */
      readonly data: unknown;
    }
  | { readonly acknowledged: false };

/** How discovery or the upgrade is refused. */
export type WsRefusal =
  /** Discovery answers this Lark code (1000040343 is the only one the SDK retries). */
  | { readonly endpointCode: number; readonly msg?: string }
  /** Discovery succeeds, the WebSocket upgrade is answered 403. */
  | { readonly upgrade: 'forbidden' };

interface Pending {
  readonly socket: WebSocket;
  readonly resolve: (ack: WsAck) => void;
}

/**
 * Lark's long connection: `POST /callback/ws/endpoint` hands out a one-use ticket URL, the
 * WebSocket speaks `pbbp2.Frame`s — the client pings (control frames), events go out as data
 * frames (split into `sum` fragments if asked) and come back as acks with the same message_id.
 */
export class FakeLarkWs {
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #sockets = new Set<WebSocket>();
  readonly #tickets = new Set<string>();
  readonly #pending = new Map<string, Pending>();
  readonly #waiters: { count: number; resolve: () => void }[] = [];
  readonly serviceId = randomInt(10_000_000, 99_999_999);
  #refusal: WsRefusal | undefined;
  #seq = 0;
  #connections = 0;
  #pings = 0;
  /** Every frame the clients sent, in order. */
  readonly received: WsFrame[] = [];
  /** Discovery calls answered (successful or not). */
  endpointCalls = 0;

  constructor(
    private readonly app: { readonly appId: string; readonly appSecret: string },
    private readonly origin: () => string,
    public clientConfig: WsClientConfig,
  ) {
    this.#wss.on('headers', (headers) => {
      headers.push('Handshake-Status: 200', 'Handshake-Msg: success');
    });
  }

  /** Connections accepted since the start (a reconnect counts again). */
  get connections(): number {
    return this.#connections;
  }

  get openConnections(): number {
    return this.#sockets.size;
  }

  get pings(): number {
    return this.#pings;
  }

  endpoint(req: ApiRequest): ApiAnswer {
    this.endpointCalls += 1;
    if (
      stringField(req.body, 'AppID') !== this.app.appId ||
      stringField(req.body, 'AppSecret') !== this.app.appSecret
    ) {
      return { kind: 'json', status: 200, body: { code: 514, msg: 'auth failed', data: {} } };
    }
    const refusal = this.#refusal;
    if (refusal !== undefined && 'endpointCode' in refusal) {
      return {
        kind: 'json',
        status: 200,
        body: { code: refusal.endpointCode, msg: refusal.msg ?? 'refused', data: {} },
      };
    }
    const ticket = randomUUID();
    this.#tickets.add(ticket);
    const base = this.origin().replace(/^http/, 'ws');
    const query = new URLSearchParams({
      fpid: '493',
      aid: '552564',
      device_id: `${randomInt(1e6, 1e7)}${randomInt(1e11, 1e12)}`,
      access_key: randomBytes(16).toString('hex'),
      service_id: String(this.serviceId),
      ticket,
    });
    return {
      kind: 'json',
      status: 200,
      body: { code: 0, msg: 'ok', data: { URL: `${base}/ws/v2?${query}`, ClientConfig: this.clientConfig } },
    };
  }

  /** Takes an HTTP upgrade if it is ours; returns false for other paths. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname !== '/ws/v2') return false;
    const ticket = url.searchParams.get('ticket') ?? '';
    const refused = this.#refusal !== undefined && 'upgrade' in this.#refusal;
    if (refused || !this.#tickets.delete(ticket)) {
      socket.end(
        'HTTP/1.1 403 Forbidden\r\nHandshake-Status: 514\r\nHandshake-Msg: ticket invalid\r\nContent-Length: 0\r\n\r\n',
      );
      return true;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws));
    return true;
  }

  #accept(ws: WebSocket): void {
    this.#sockets.add(ws);
    this.#connections += 1;
    ws.on('message', (data: Buffer) => this.#onFrame(ws, data));
    ws.on('close', () => {
      this.#sockets.delete(ws);
      for (const [id, pending] of this.#pending) {
        if (pending.socket === ws) {
          this.#pending.delete(id);
          pending.resolve({ acknowledged: false });
        }
      }
    });
    ws.on('error', () => ws.terminate());
    for (const waiter of [...this.#waiters]) {
      if (this.#connections >= waiter.count) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }

  #onFrame(ws: WebSocket, data: Buffer): void {
    let frame: WsFrame;
    try {
      frame = decodeFrame(data);
    } catch {
      ws.terminate();
      return;
    }
    this.received.push(frame);
    if (frame.method === FRAME_CONTROL && frame.headers['type'] === 'ping') {
      this.#pings += 1;
      ws.send(
        encodeFrame({
          ...frame,
          headers: { type: 'pong' },
          payload: Buffer.from(JSON.stringify(this.clientConfig)),
        }),
      );
      return;
    }
    const id = frame.headers['message_id'];
    const pending = id === undefined ? undefined : this.#pending.get(id);
    if (frame.method !== FRAME_DATA || id === undefined || pending === undefined) return;
    this.#pending.delete(id);
    pending.resolve(parseAck(frame.payload));
  }

  /** Resolves once `count` connections have been accepted in total. */
  waitForConnections(count = 1): Promise<void> {
    if (this.#connections >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  /**
   * Sends an event to the newest open connection; resolves with the SDK's ack, or with
   * `acknowledged: false` if the connection closes first.
   */
  push(payload: object, options: { fragments?: number } = {}): Promise<WsAck> {
    const socket = [...this.#sockets].at(-1);
    if (socket === undefined) return Promise.reject(new Error('no long connection is open'));
    const bytes = Buffer.from(JSON.stringify(payload));
    const parts = Math.max(1, Math.min(options.fragments ?? 1, bytes.length));
    const messageId = randomUUID();
    const traceId = randomUUID();
    const promise = new Promise<WsAck>((resolve) => this.#pending.set(messageId, { socket, resolve }));
    const size = Math.ceil(bytes.length / parts);
    for (let seq = 0; seq < parts; seq += 1) {
      this.#seq += 1;
      socket.send(
        encodeFrame({
          seqId: this.#seq,
          logId: randomInt(1, 2 ** 31),
          service: this.serviceId,
          method: FRAME_DATA,
          headers: {
            type: 'event',
            message_id: messageId,
            sum: String(parts),
            seq: String(seq),
            trace_id: traceId,
          },
          payload: bytes.subarray(seq * size, (seq + 1) * size),
        }),
      );
    }
    return promise;
  }

  /** Cuts every open connection (no close frame): the SDK sees a dropped connection. */
  drop(): void {
    for (const socket of this.#sockets) socket.terminate();
  }

  refuse(refusal: WsRefusal): void {
    this.#refusal = refusal;
  }

  accept(): void {
    this.#refusal = undefined;
  }

  async close(): Promise<void> {
    this.drop();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }
}

function parseAck(payload: Buffer): WsAck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload.toString('utf8'));
  } catch {
    return { acknowledged: true, code: 0, data: undefined };
  }
  const record = isRecord(parsed) ? parsed : {};
  const code = typeof record['code'] === 'number' ? record['code'] : 0;
  let data: unknown;
  if (typeof record['data'] === 'string') {
    const decoded = Buffer.from(record['data'], 'base64').toString('utf8');
    try {
      data = JSON.parse(decoded);
    } catch {
      data = decoded;
    }
  }
  return { acknowledged: true, code, data };
}
