import type { Logger } from 'pino';
import { z } from 'zod';
import type { McpServerConfig } from '../../config/mcp-servers-schema.js';
import { HermesError } from '../../errors/hermes-error.js';
import { backoffDelay } from '../../lib/backoff-delay.js';
import type { Registry } from '../../registry/create-registry.js';
import { defineTool } from '../../registry/define-tool.js';
import { mcpToolsetName } from '../../registry/mcp-toolsets.js';
import type { CheckFn, ToolContext, ToolDefinition } from '../../registry/tool-types.js';
import {
  connectMcpServer,
  isConnectionFailure,
  type McpConnection,
  type McpToolInfo,
} from './connect-mcp-server.js';
import { gateMcpCall, mcpCallAction } from './gate-mcp-call.js';
import { mcpResultText } from './mcp-result-text.js';
import type { McpToolCache } from './mcp-tool-cache.js';
import { mcpToolName } from './mcp-tool-name.js';
import { sanitizeMcpSchema } from './sanitize-mcp-schema.js';

/** Characters of an MCP result above which it is spilled to a file (built-ins: tools.max_result_chars). */
export const MCP_RESULT_CHARS = 50_000;

export type McpServerStatus = 'disabled' | 'connecting' | 'connected' | 'failed' | 'stopped';

/** One server as /readyz, doctor and /reload-mcp show it. */
export interface McpServerState {
  readonly name: string;
  readonly transport: 'stdio' | 'http';
  readonly status: McpServerStatus;
  /** Tools registered for it (from the live listing, or the cached one while not connected). */
  readonly tools: number;
  readonly error?: string;
  /** Failed attempts in a row. */
  readonly failures: number;
  /** Epoch ms of the next attempt while failed. */
  readonly nextAttemptAt?: number;
}

/** A tool's own error (the server answered `isError: true`): the model reads its text. */
export class McpToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpToolError';
  }
}

export interface SupervisorOptions {
  readonly name: string;
  readonly server: McpServerConfig;
  readonly registry: Registry;
  readonly cache: McpToolCache;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly lookupEnv: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  readonly version: string;
  readonly now: () => number;
  /** First retry delay and cap, ms. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** How often a connected server is pinged to notice one that went away silently, ms. */
  readonly pingIntervalMs: number;
}

const ANY_ARGUMENTS = z.looseObject({});

/**
 * Keeps one MCP server connected: connects in the background, registers its tools in toolset
 * `mcp-<name>`, and when the connection is lost (or never comes) keeps the tools registered but
 * unavailable and tries again with exponential backoff. Never throws into the gateway.
 */
export class McpServerSupervisor {
  readonly name: string;
  readonly #o: SupervisorOptions;
  #status: McpServerStatus;
  #error: string | undefined;
  #failures = 0;
  #nextAttemptAt: number | undefined;
  #connection: McpConnection | undefined;
  #listing: readonly McpToolInfo[] = [];
  readonly #registered = new Set<string>();
  #stopped = false;
  #running: Promise<void> | undefined;
  /** Wakes the loop: ends a backoff wait, or drops the current connection. */
  #wake: ((reason: string) => void) | undefined;
  #firstAttempt: Promise<void>;
  #firstAttemptDone: () => void = () => {};

  constructor(options: SupervisorOptions) {
    this.#o = options;
    this.name = options.name;
    this.#status = options.server.enabled ? 'connecting' : 'disabled';
    this.#firstAttempt = new Promise((resolve) => {
      this.#firstAttemptDone = resolve;
    });
    if (!options.server.enabled) {
      this.#firstAttemptDone();
      return;
    }
    // The last listing, so the toolset is known (and shown unavailable) before the first connect.
    const cached = options.cache.read(options.name);
    if (cached !== undefined) this.#register(cached.tools);
  }

  /** Starts connecting in the background; returns at once. */
  start(): void {
    if (this.#running !== undefined || this.#stopped || !this.#o.server.enabled) return;
    this.#running = this.#loop().catch((error: unknown) => {
      this.#o.logger.error({ mcpServer: this.name, err: (error as Error).message }, 'mcp supervisor stopped');
    });
  }

  /** Resolves once the first connection attempt has ended (connected or failed), or after `ms`. */
  async settled(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#firstAttempt,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
    clearTimeout(timer);
  }

  state(): McpServerState {
    return {
      name: this.name,
      transport: this.#o.server.url !== undefined ? 'http' : 'stdio',
      status: this.#status,
      tools: this.#registered.size,
      failures: this.#failures,
      ...(this.#error !== undefined ? { error: this.#error } : {}),
      ...(this.#status === 'failed' && this.#nextAttemptAt !== undefined
        ? { nextAttemptAt: this.#nextAttemptAt }
        : {}),
    };
  }

  /** Drops the connection (if any) and connects again at once, with a fresh tool listing. */
  reconnect(): void {
    if (this.#stopped || !this.#o.server.enabled) return;
    this.#failures = 0;
    this.#firstAttempt = new Promise((resolve) => {
      this.#firstAttemptDone = resolve;
    });
    this.#wake?.('reconnecting on request');
  }

  async close(): Promise<void> {
    this.#stopped = true;
    this.#status = this.#o.server.enabled ? 'stopped' : 'disabled';
    this.#wake?.('gateway stopping');
    await this.#running;
    this.#firstAttemptDone();
  }

  async #loop(): Promise<void> {
    const { logger } = this.#o;
    while (!this.#stopped) {
      this.#status = 'connecting';
      this.#nextAttemptAt = undefined;
      let connection: McpConnection | undefined;
      const interrupted = this.#interruption();
      try {
        const connecting = connectMcpServer({
          name: this.name,
          server: this.#o.server,
          baseEnv: this.#o.baseEnv,
          lookupEnv: this.#o.lookupEnv,
          logger,
          version: this.#o.version,
        });
        const first = await Promise.race([connecting, interrupted.promise.then(() => undefined)]);
        if (first === undefined) {
          // Closed (or reload) while connecting: close what may still arrive.
          void connecting.then((late) => late.close()).catch(() => {});
          interrupted.cancel();
          continue;
        }
        connection = first;
      } catch (error) {
        interrupted.cancel();
        if (this.#stopped) break;
        this.#fail((error as Error).message);
        await this.#backoff();
        continue;
      }
      interrupted.cancel();
      if (this.#stopped) {
        await connection.close();
        break;
      }
      this.#connection = connection;
      this.#listing = connection.tools;
      this.#status = 'connected';
      this.#error = undefined;
      this.#failures = 0;
      this.#register(connection.tools);
      this.#o.cache.write(this.name, { listedAt: this.#o.now(), tools: connection.tools });
      logger.info({ mcpServer: this.name, tools: this.#registered.size }, 'mcp server connected');
      this.#firstAttemptDone();
      const reason = await this.#watch(connection);
      this.#connection = undefined;
      await connection.close();
      if (this.#stopped) break;
      if (reason === 'reconnecting on request') continue;
      this.#fail(reason);
      await this.#backoff();
    }
  }

  /** Waits until the connection is gone, a ping goes unanswered, or the loop is woken. */
  async #watch(connection: McpConnection): Promise<string> {
    const woken = this.#interruption();
    let timer: NodeJS.Timeout | undefined;
    const pinged = new Promise<string>((resolve) => {
      const tick = () => {
        timer = setTimeout(() => {
          connection
            .ping(Math.min(10_000, this.#o.server.connect_timeout * 1_000))
            .then(tick, (error: Error) => resolve(`no answer to ping: ${error.message}`));
        }, this.#o.pingIntervalMs);
        timer.unref();
      };
      tick();
    });
    try {
      return await Promise.race([connection.closed, woken.promise, pinged]);
    } finally {
      clearTimeout(timer);
      woken.cancel();
    }
  }

  /** A promise the next `#wake` call resolves (one waiter at a time: the loop). */
  #interruption(): { promise: Promise<string>; cancel: () => void } {
    let resolve: (reason: string) => void = () => {};
    const promise = new Promise<string>((r) => {
      resolve = r;
    });
    this.#wake = resolve;
    return {
      promise,
      cancel: () => {
        if (this.#wake === resolve) this.#wake = undefined;
      },
    };
  }

  #fail(reason: string): void {
    this.#failures += 1;
    this.#status = 'failed';
    this.#error = reason;
    const delay = backoffDelay(this.#failures, this.#o.retryBaseMs, this.#o.retryMaxMs);
    this.#nextAttemptAt = this.#o.now() + delay;
    this.#o.logger.warn(
      { mcpServer: this.name, err: reason, failures: this.#failures, retryInMs: delay },
      'mcp server unavailable; retrying',
    );
    // Same tools, fresh availability probe: unavailable from now on, not after a cache's grace.
    this.#register(this.#listing.length > 0 ? this.#listing : (this.#o.cache.read(this.name)?.tools ?? []));
    this.#firstAttemptDone();
  }

  async #backoff(): Promise<void> {
    if (this.#stopped) return;
    const wait = Math.max(0, (this.#nextAttemptAt ?? this.#o.now()) - this.#o.now());
    const woken = this.#interruption();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      woken.promise,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, wait);
      }),
    ]);
    clearTimeout(timer);
    woken.cancel();
  }

  /** Registers the listed tools (filtered by `tools.include|exclude`), drops those no longer listed. */
  #register(listing: readonly McpToolInfo[]): void {
    const { registry, server, logger } = this.#o;
    const toolset = mcpToolsetName(this.name);
    const include = server.tools?.include;
    const exclude = new Set(server.tools?.exclude ?? []);
    const check: CheckFn = () =>
      this.#connection !== undefined
        ? true
        : { ok: false, reason: `MCP server '${this.name}' is ${this.#unavailableText()}` };
    const next = new Set<string>();
    for (const info of listing) {
      if (include !== undefined ? !include.includes(info.name) : exclude.has(info.name)) continue;
      const name = mcpToolName(this.name, info.name);
      if (next.has(name)) {
        logger.warn(
          { mcpServer: this.name, tool: info.name },
          'mcp tool skipped: its name clashes with another tool of the server',
        );
        continue;
      }
      let definition: ToolDefinition;
      try {
        definition = this.#define(name, toolset, info, check);
      } catch (error) {
        logger.warn(
          { mcpServer: this.name, tool: info.name, err: (error as Error).message },
          'mcp tool skipped',
        );
        continue;
      }
      if (registry.register(definition) === 'rejected') continue;
      next.add(name);
    }
    for (const name of this.#registered) if (!next.has(name)) registry.unregister(name);
    this.#registered.clear();
    for (const name of next) this.#registered.add(name);
  }

  #define(name: string, toolset: string, info: McpToolInfo, check: CheckFn): ToolDefinition {
    const description =
      info.description.trim() === '' ? `Tool '${info.name}' of MCP server '${this.name}'.` : info.description;
    const definition = defineTool({
      name,
      toolset,
      description: description.length > 4_000 ? `${description.slice(0, 3_999)}…` : description,
      parameters: ANY_ARGUMENTS,
      handler: (args, ctx) => this.#call(name, info, args, ctx),
      checkFn: check,
      maxResultChars: MCP_RESULT_CHARS,
      readOnly: info.readOnly,
      emoji: '🔌',
    });
    return Object.freeze({ ...definition, jsonSchema: sanitizeMcpSchema(info.inputSchema) });
  }

  async #call(
    name: string,
    info: McpToolInfo,
    args: Record<string, unknown>,
    ctx: ToolContext,
  ): Promise<string> {
    const connection = this.#connection;
    if (connection === undefined) {
      throw new HermesError('mcp_unavailable', `MCP server '${this.name}' is ${this.#unavailableText()}`);
    }
    const approval = this.#o.server.approval;
    if (approval === 'all' || (approval === 'destructive' && info.destructive)) {
      const action = mcpCallAction({
        toolName: name,
        server: this.name,
        mcpTool: info.name,
        args,
        why: approval,
      });
      await gateMcpCall(action, ctx);
    }
    let result: unknown;
    try {
      result = await connection.call(info.name, args, {
        signal: ctx.signal,
        timeoutMs: this.#o.server.timeout * 1_000,
      });
    } catch (error) {
      if (isConnectionFailure(error) && this.#connection === connection) {
        this.#wake?.(`connection lost during a call: ${(error as Error).message}`);
      }
      throw error;
    }
    const { text, isError } = mcpResultText(result);
    if (isError) throw new McpToolError(text === '' ? 'the tool reported an error without a message' : text);
    return text;
  }

  #unavailableText(): string {
    if (this.#status === 'connecting') return 'still connecting';
    if (this.#status === 'failed') {
      const wait = Math.max(0, Math.ceil(((this.#nextAttemptAt ?? 0) - this.#o.now()) / 1_000));
      return `unreachable (${this.#error ?? 'unknown error'}); next attempt in ${wait} s`;
    }
    return this.#status === 'disabled' ? 'disabled in config.yaml' : 'not connected';
  }
}
