import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Logger } from 'pino';
import type { McpServerConfig } from '../../config/mcp-servers-schema.js';
import { HermesError } from '../../errors/hermes-error.js';
import { interpolateEnv, mcpChildEnv } from './mcp-child-env.js';

/** One tool as the server lists it (the parts we use). */
export interface McpToolInfo {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: unknown;
  readonly destructive: boolean;
  readonly readOnly: boolean;
}

/** A live connection to one MCP server. */
export interface McpConnection {
  readonly tools: readonly McpToolInfo[];
  /** Calls a tool; resolves to the raw CallToolResult. Throws on protocol or transport failure. */
  call(
    tool: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<unknown>;
  /** Resolves to the reason once the connection is gone (server exited, transport closed). */
  readonly closed: Promise<string>;
  /** One round trip; rejects when the server does not answer. */
  ping(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  readonly name: string;
  readonly server: McpServerConfig;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /** Where `${NAME}` references are looked up (the environment over `$HERMES_HOME/.env`). */
  readonly lookupEnv: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  readonly version: string;
}

const STDERR_TAIL = 2_000;
const CONNECTION_CLOSED = -32000;
const MAX_PAGES = 50;

/**
 * Connects to one server (starting its program for stdio), lists its tools (every page) and
 * returns the connection; the attempt fails after `connect_timeout` seconds, killing the program.
 */
export async function connectMcpServer(options: ConnectOptions): Promise<McpConnection> {
  const { name, server, logger } = options;
  // Loaded on first use: a gateway (or CLI run) without MCP servers never pays for the SDK.
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  let stderrTail = '';
  const transport = await createTransport(options, (chunk) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL);
    logger.debug({ mcpServer: name, stderr: chunk.slice(0, 500) }, 'mcp server stderr');
  });
  const client = new Client({ name: 'hermes-gateway', version: options.version }, { capabilities: {} });
  let settleClosed: (reason: string) => void = () => {};
  const closed = new Promise<string>((resolve) => {
    settleClosed = resolve;
  });
  const lost = (fallback: string) => {
    const tail = stderrTail.trim().split('\n').slice(-3).join(' | ');
    settleClosed(tail === '' ? fallback : `${fallback} (stderr: ${tail.slice(-300)})`);
  };
  client.onclose = () => lost('connection closed');
  client.onerror = (error) => logger.debug({ mcpServer: name, err: error.message }, 'mcp transport error');
  const timeoutMs = server.connect_timeout * 1_000;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    await client.connect(transport, { timeout: timeoutMs, signal: controller.signal });
    const tools = await listAllTools(client, { timeout: timeoutMs, signal: controller.signal });
    clearTimeout(timer);
    return {
      tools,
      closed,
      async call(tool, args, callOptions) {
        // A signal of our own per call, so long-lived signals never collect the SDK's listeners.
        const own = new AbortController();
        const abort = () => own.abort(callOptions.signal.reason);
        if (callOptions.signal.aborted) abort();
        else callOptions.signal.addEventListener('abort', abort, { once: true });
        try {
          return await client.callTool({ name: tool, arguments: args }, undefined, {
            signal: own.signal,
            timeout: callOptions.timeoutMs,
            resetTimeoutOnProgress: false,
          });
        } finally {
          callOptions.signal.removeEventListener('abort', abort);
        }
      },
      async ping(pingTimeoutMs) {
        await client.ping({ timeout: pingTimeoutMs });
      },
      async close() {
        await client.close().catch(() => {});
      },
    };
  } catch (error) {
    clearTimeout(timer);
    await client.close().catch(() => {});
    const tail = stderrTail.trim().split('\n').slice(-3).join(' | ');
    const why = controller.signal.aborted
      ? `no answer within ${server.connect_timeout} s`
      : (error as Error).message;
    throw new HermesError('mcp_failed', tail === '' ? why : `${why} (stderr: ${tail.slice(-300)})`, {
      cause: error,
    });
  }
}

async function createTransport(
  options: ConnectOptions,
  onStderr: (chunk: string) => void,
): Promise<Transport> {
  const { name, server, baseEnv, lookupEnv } = options;
  if (server.url !== undefined) {
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(server.headers)) {
      headers[key] = interpolateEnv(value, lookupEnv, `mcp_servers.${name}.headers.${key}`);
    }
    return new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers },
      reconnectionOptions: {
        maxReconnectionDelay: 30_000,
        initialReconnectionDelay: 1_000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 2,
      },
    });
  }
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const transport = new StdioClientTransport({
    command: server.command ?? '',
    args: [...server.args],
    env: mcpChildEnv(baseEnv, server.env, name, lookupEnv),
    ...(server.cwd !== undefined ? { cwd: server.cwd } : {}),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString('utf8')));
  return transport;
}

async function listAllTools(
  client: Client,
  options: { timeout: number; signal: AbortSignal },
): Promise<McpToolInfo[]> {
  const out: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, options);
    for (const tool of result.tools) {
      out.push({
        name: tool.name,
        description: tool.description ?? tool.title ?? '',
        inputSchema: tool.inputSchema,
        destructive: tool.annotations?.destructiveHint === true && tool.annotations.readOnlyHint !== true,
        readOnly: tool.annotations?.readOnlyHint === true,
      });
    }
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return out;
}

/**
 * True when a failed call means the connection itself is gone (closed, refused, reset), so the
 * server should be reconnected; false for an answer the server gave (bad arguments, timeout…).
 */
export function isConnectionFailure(error: unknown): boolean {
  // The SDK's McpError carries the JSON-RPC code; -32000 is its "connection closed".
  if ((error as Error)?.name === 'McpError') return (error as { code?: unknown }).code === CONNECTION_CLOSED;
  if (error instanceof HermesError) return false;
  const text = `${(error as Error)?.message ?? ''} ${String((error as { cause?: { code?: unknown } })?.cause?.code ?? '')}`;
  return /fetch failed|ECONNREFUSED|ECONNRESET|EPIPE|not connected|socket hang up/i.test(text);
}
