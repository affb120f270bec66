import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.js';
import { readDotEnv } from '../../config/load-config.js';
import type { Registry } from '../../registry/create-registry.js';
import { type McpServerState, McpServerSupervisor } from './mcp-server-supervisor.js';
import { McpToolCache } from './mcp-tool-cache.js';

export interface McpManager {
  /** Starts connecting every enabled server in the background; returns at once. Idempotent. */
  start(): void;
  /** Each configured server's state, by name. */
  states(): McpServerState[];
  /** Waits (at most `ms`) until every server's current connection attempt has ended. */
  settled(ms: number): Promise<void>;
  /** Reconnects every enabled server (fresh tool listings); resolves after at most `waitMs`. */
  reload(waitMs?: number): Promise<McpServerState[]>;
  /** Disconnects every server (stdio programs are stopped); idempotent. */
  close(): Promise<void>;
}

export interface CreateMcpManagerOptions {
  readonly config: Pick<Config, 'mcp_servers' | 'home'>;
  readonly registry: Registry;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  readonly version?: string;
  readonly now?: () => number;
  /** First retry delay, ms (default 1 s); doubles per failure up to `retryMaxMs` (default 5 min). */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  /** Ping interval of a connected server, ms (default 30 s). */
  readonly pingIntervalMs?: number;
}

/**
 * The gateway's MCP servers: one supervisor per configured server, each registering its tools as
 * toolset `mcp-<name>`. Creating it registers the cached listings (tools shown unavailable until
 * their server connects); nothing connects before `start()`, and nothing here blocks start-up.
 */
export function createMcpManager(options: CreateMcpManagerOptions): McpManager {
  const cache = new McpToolCache(options.config.home);
  const now = options.now ?? Date.now;
  // `${NAME}` in env/headers: the real environment wins over $HERMES_HOME/.env, as for settings.
  const lookupEnv = { ...readDotEnv(join(options.config.home, '.env')), ...options.baseEnv };
  const supervisors = Object.entries(options.config.mcp_servers).map(
    ([name, server]) =>
      new McpServerSupervisor({
        name,
        server,
        registry: options.registry,
        cache,
        baseEnv: options.baseEnv,
        lookupEnv,
        logger: options.logger,
        version: options.version ?? '0.0.0',
        now,
        retryBaseMs: options.retryBaseMs ?? 1_000,
        retryMaxMs: options.retryMaxMs ?? 300_000,
        pingIntervalMs: options.pingIntervalMs ?? 30_000,
      }),
  );
  let closing: Promise<void> | undefined;
  const settled = async (ms: number) => {
    await Promise.all(supervisors.map((supervisor) => supervisor.settled(ms)));
  };
  return {
    start() {
      if (closing !== undefined) return;
      for (const supervisor of supervisors) supervisor.start();
    },
    states: () => supervisors.map((supervisor) => supervisor.state()),
    settled,
    async reload(waitMs = 10_000) {
      for (const supervisor of supervisors) supervisor.reconnect();
      await settled(waitMs);
      return supervisors.map((supervisor) => supervisor.state());
    },
    close() {
      closing ??= Promise.all(supervisors.map((supervisor) => supervisor.close())).then(() => undefined);
      return closing;
    },
  };
}

/** One line for /readyz, doctor and /reload-mcp: `connected, 3 tools` / `failed: … (retry in 8 s)`. */
export function describeMcpState(state: McpServerState, now: number = Date.now()): string {
  const tools = `${state.tools} tool${state.tools === 1 ? '' : 's'}`;
  switch (state.status) {
    case 'connected':
      return `connected (${state.transport}), ${tools}`;
    case 'connecting':
      return `connecting (${state.transport})${state.tools > 0 ? `, ${tools} from the last listing` : ''}`;
    case 'failed': {
      const wait = Math.max(0, Math.ceil(((state.nextAttemptAt ?? now) - now) / 1_000));
      return `failed (${state.transport}): ${state.error ?? 'unknown error'}; attempt ${state.failures + 1} in ${wait} s, ${tools} unavailable meanwhile`;
    }
    case 'disabled':
      return 'disabled (enabled: false)';
    default:
      return 'stopped';
  }
}
