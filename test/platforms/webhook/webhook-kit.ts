import { createHmac, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { createGateway, type Gateway } from '../../../src/app/create-gateway.js';
import { loadConfig } from '../../../src/config/load-config.js';
import type { Ingress } from '../../../src/platforms/ingress.js';
import type { DeliverToChat } from '../../../src/platforms/webhook/deliver-run-result.js';
import { registerWebhookPlatform } from '../../../src/platforms/webhook/register-webhook-platform.js';
import { deleteKeys, type QueueMode, REDIS_URL, waitFor } from '../../gateway/e2e/gateway-kit.js';
import { silentLogger } from '../../helpers/test-config.js';

export { waitFor };

const TOOLS_DIR = resolve(import.meta.dirname, '../../../src/tools');

export interface WebhookGateway {
  readonly gateway: Gateway;
  readonly workdir: string;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  post(route: string, body: string | Buffer, headers?: Record<string, string>): Promise<HttpAnswer>;
  get(path: string, headers?: Record<string, string>): Promise<HttpAnswer>;
  /** Polls the run until `done`, `failed` or `delivery_failed` and its delivery is settled. */
  settledRun(route: string, runId: string, secret?: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly json: Record<string, unknown>;
}

/**
 * A real gateway (SQLite store, queue, turn runner, tool runtime, fastify) on a random loopback
 * port, with the webhook platform registered on its app before it listens.
 */
export async function startWebhookGateway(options: {
  readonly mode: QueueMode;
  readonly modelURL: string;
  readonly webhook: Record<string, unknown>;
  readonly deliverToChat?: DeliverToChat;
  /** Wins over the gateway's own check (a test can pretend no model is configured). */
  readonly unavailableReason?: () => string | undefined;
  /** Wraps the queue's submit (a test can make it fail). */
  readonly wrapSubmit?: (submit: Ingress['submit']) => Ingress['submit'];
}): Promise<WebhookGateway> {
  const home = mkdtempSync(join(tmpdir(), 'hermes-wh-'));
  const workdir = mkdtempSync(join(tmpdir(), 'hermes-wh-work-'));
  const prefix = `hgwh-${randomBytes(4).toString('hex')}`;
  writeFileSync(
    join(home, 'config.yaml'),
    stringify({
      http: { port: 0 },
      redis: { prefix },
      queue: {
        lock_duration_ms: 2000,
        stalled_interval_ms: 1000,
        shutdown_grace_ms: 2000,
      },
      platforms: { webhook: { enabled: true, ...options.webhook } },
    }),
  );
  const config = loadConfig({
    home,
    env: {
      TERMINAL_CWD: workdir,
      OPENAI_BASE_URL: options.modelURL,
      OPENAI_API_KEY: 'sk-test-key-0123456789',
      HERMES_MODEL: 'fake-model',
      ...(options.mode === 'bullmq' ? { REDIS_URL } : {}),
    },
  });
  const gateway = await createGateway({
    config,
    logger: silentLogger,
    baseEnv: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: workdir },
    builtinToolsDir: TOOLS_DIR,
    role: 'gateway',
    webhooks: false,
  });
  registerWebhookPlatform(gateway.app!, {
    config,
    logger: silentLogger,
    ingress: {
      ...gateway.ingress,
      submit: (options.wrapSubmit ?? ((submit) => submit))((item) => gateway.ingress.submit(item)),
      unavailableReason: options.unavailableReason ?? gateway.unavailableReason,
    },
    ...(options.deliverToChat !== undefined ? { deliverToChat: options.deliverToChat } : {}),
  });
  const origin = (await gateway.start()) ?? '';

  async function request(path: string, init: RequestInit): Promise<HttpAnswer> {
    const response = await fetch(`${origin}${path}`, init);
    const text = await response.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = { raw: text };
    }
    return { status: response.status, headers: response.headers, json };
  }

  const kit: WebhookGateway = {
    gateway,
    workdir,
    origin,
    post: (route, body, headers = {}) =>
      request(`/webhooks/${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      }),
    get: (path, headers = {}) => request(path, { headers }),
    async settledRun(route, runId, secret) {
      let last: Record<string, unknown> = {};
      await waitFor(async () => {
        const answer = await kit.get(
          `/webhooks/${route}/runs/${runId}`,
          secret === undefined ? {} : { authorization: `Bearer ${secret}` },
        );
        last = answer.json;
        const delivery = (last['delivery'] as { status?: string } | undefined)?.status;
        return (
          ['done', 'failed', 'delivery_failed'].includes(String(last['status'])) && delivery !== 'pending'
        );
      });
      return last;
    },
    async close() {
      await gateway.close();
      rmSync(home, { recursive: true, force: true });
      rmSync(workdir, { recursive: true, force: true });
      if (options.mode === 'bullmq') await deleteKeys(`${prefix}*`);
    },
  };
  return kit;
}

export function githubHeaders(secret: string, body: string, deliveryId?: string): Record<string, string> {
  return {
    'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    'x-github-event': 'issues',
    'x-github-delivery': deliveryId ?? randomBytes(8).toString('hex'),
  };
}

/** Signs like an independent Standard Webhooks sender (whsec_ secrets are base64 keys). */
export function standardHeaders(
  secret: string,
  body: string,
  options: { id?: string; timestamp?: number } = {},
): Record<string, string> {
  const id = options.id ?? `msg_${randomBytes(8).toString('hex')}`;
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature}`,
  };
}

export interface ReceivedCall {
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface Receiver {
  readonly url: string;
  readonly calls: ReceivedCall[];
  /** Status codes for the next calls, in order; 200 once they run out. */
  readonly statuses: number[];
  close(): Promise<void>;
}

/** A callback receiver on a random loopback port that records every call. */
export async function startReceiver(): Promise<Receiver> {
  const calls: ReceivedCall[] = [];
  const statuses: number[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      calls.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(statuses.shift() ?? 200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    calls,
    statuses,
    async close() {
      for (const socket of sockets) socket.destroy();
      if (server.listening) await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/** A loopback URL nothing listens on (the port was just released). */
export async function deadURL(): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return `http://127.0.0.1:${port}/hook`;
}
