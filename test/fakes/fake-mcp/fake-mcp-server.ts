import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/**
 * A real MCP server written with the SDK, with a few tools whose behaviour tests can see:
 * `echo`, `add`, `fail` (isError), `big` (a long text), `slow`, `delete_item` (destructiveHint),
 * `show_env` (a variable of the server's environment), `crash` (the stdio program exits) and a
 * tool with a dotted name and a nested object parameter (`lookup.item`).
 */
export function createFakeMcpServer(
  options: { readonly label?: string; readonly onCrash?: () => void } = {},
): McpServer {
  const server = new McpServer({
    name: `fake-mcp${options.label ? `-${options.label}` : ''}`,
    version: '1.0.0',
  });
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
  server.registerTool(
    'echo',
    {
      description: 'Echoes the text back.',
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ text: value }) => text(`echo: ${value}`),
  );
  server.registerTool(
    'add',
    { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => text(String(a + b)),
  );
  server.registerTool('fail', { description: 'Always fails.', inputSchema: {} }, async () => ({
    isError: true,
    content: [{ type: 'text' as const, text: 'the fake tool failed on purpose' }],
  }));
  server.registerTool(
    'big',
    { description: 'Returns a long text.', inputSchema: { chars: z.number().int() } },
    async ({ chars }) => text('x'.repeat(chars)),
  );
  server.registerTool(
    'slow',
    { description: 'Answers after a delay.', inputSchema: { ms: z.number().int() } },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return text(`slept ${ms} ms`);
    },
  );
  server.registerTool(
    'delete_item',
    {
      description: 'Deletes an item for good.',
      inputSchema: { id: z.string() },
      annotations: { destructiveHint: true, readOnlyHint: false },
    },
    async ({ id }) => text(`deleted ${id}`),
  );
  server.registerTool(
    'show_env',
    { description: 'Shows one variable of the server environment.', inputSchema: { name: z.string() } },
    async ({ name }) => text(`${name}=${process.env[name] ?? '(unset)'}`),
  );
  server.registerTool('crash', { description: 'Stops the server program.', inputSchema: {} }, async () => {
    options.onCrash?.();
    return text('crashing');
  });
  // A dotted name (not a valid function name for model APIs) and a nested object parameter.
  server.registerTool(
    'lookup.item',
    {
      description: 'Looks an item up.',
      inputSchema: { item: z.object({ id: z.string(), kind: z.enum(['a', 'b']) }) },
    },
    async ({ item }) => text(`found ${item.kind}:${item.id}`),
  );
  return server;
}

export interface FakeMcpHttp {
  readonly url: string;
  readonly port: number;
  /** Headers of every request received. */
  readonly requests: IncomingMessage['headers'][];
  close(): Promise<void>;
}

/** The fake server over streamable HTTP (stateless: a fresh server per request) on loopback. */
export async function startFakeMcpHttp(options: { readonly port?: number } = {}): Promise<FakeMcpHttp> {
  const requests: IncomingMessage['headers'][] = [];
  const http: Server = createServer((req, res) => {
    requests.push(req.headers);
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    const server = createFakeMcpServer({ label: 'http' });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  http.listen(options.port ?? 0, '127.0.0.1');
  await once(http, 'listening');
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    requests,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
