import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Config } from '../../../src/config/config-schema.js';
import type { ToolContext } from '../../../src/registry/tool-types.js';
import { testConfig, testServices } from '../../helpers/test-config.js';

/** Writes `config.yaml` into a temp home and loads it (plus env) the real way. */
export function configWith(
  home: string,
  values: Record<string, unknown>,
  env: Record<string, string> = {},
): Config {
  writeFileSync(join(home, 'config.yaml'), stringify(values));
  return testConfig(home, env);
}

export function toolContext(
  config: Config,
  options: { signal?: AbortSignal; cwd?: string } = {},
): ToolContext {
  return {
    signal: options.signal ?? new AbortController().signal,
    sessionKey: 'agent:main:test:dm:1',
    taskId: 'task-1',
    cwd: options.cwd ?? config.home,
    userId: 'u1',
    platform: 'test',
    unattended: false,
    toolCallId: undefined,
    services: testServices(config),
  };
}

export interface TestServer {
  readonly port: number;
  /** `http://127.0.0.1:PORT` + path. */
  url(path?: string): string;
  /** Requests seen, in order. */
  readonly seen: { readonly url: string; readonly headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 (port 0); close() also drops keep-alive sockets. */
export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const seen: TestServer['seen'] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '/', headers: req.headers });
    handler(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    seen,
    url: (path = '/') => `http://127.0.0.1:${port}${path}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A 1×1 transparent PNG. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
