import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createPermanentAllowlist } from '../approval/allowlist.js';
import type { ApprovalStore } from '../approval/approval-store.js';
import { type ApprovalGateController, createApprovalGate } from '../approval/create-approval-gate.js';
import { createMemoryApprovalStore } from '../approval/memory-approval-store.js';
import { createRedisApprovalStore } from '../approval/redis-approval-store.js';
import { createSharedAllowlist } from '../approval/shared-allowlist.js';
import { createSmartReviewer, type SmartReviewer } from '../approval/smart-reviewer.js';
import type { Config } from '../config/config-schema.js';
import { resolvePlatformAccess } from '../gateway/access/access-policy.js';
import type { PgPool } from '../gateway/store/pg-database.js';
import { type AgentTaskTable, createAgentTaskTable } from '../gateway/turn/agent-task-table.js';
import { createModelClient } from '../gateway/turn/create-model-client.js';
import { createSubAgentRunner } from '../gateway/turn/create-sub-agent-runner.js';
import {
  createResumableApprovalGate,
  type ResumableApprovalGate,
} from '../gateway/turn/resumable-approval-gate.js';
import { discordToolOperationsFromConfig } from '../platforms/discord/discord-tool-service.js';
import { feishuDocReaderFromConfig } from '../platforms/feishu/feishu-doc-reader.js';
import { createRegistry, type Registry } from '../registry/create-registry.js';
import { type DiscoveryReport, discoverTools } from '../registry/discover-tools.js';
import { mcpToolsetSpecs } from '../registry/mcp-toolsets.js';
import type { ToolServices } from '../registry/tool-services.js';
import { createToolsets, type Toolsets } from '../registry/toolsets.js';
import type { SessionSearchService } from '../tools/agent/agent-services.js';
import type { CronjobService } from '../tools/cronjob/cronjob-services.js';
import type { DiscordToolService } from '../tools/discord/discord-services.js';
import type { FeishuDocService } from '../tools/feishu/feishu-services.js';
import { createMcpManager, type McpManager } from '../tools/mcp/create-mcp-manager.js';
import { MemoryStore } from '../tools/memory/memory-store.js';
import { type CommandGroupLedger, createCommandGroupLedger } from '../tools/terminal/command-group-ledger.js';
import { createProcessTable, type ProcessTable } from '../tools/terminal/process-table.js';
import { placementSummary } from '../tools/terminal/terminal-placement.js';
import { TodoStore } from '../tools/todo/todo-store.js';
import { createPgAllowlistEntries } from './pg-allowlist-entries.js';
import { createPgMemoryEntries } from './pg-memory-entries.js';
import { createPgSharedFiles } from './pg-shared-files.js';
import { createPgTodoPersistence } from './pg-todo-persistence.js';

export interface ToolRuntime {
  readonly config: Config;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly toolsets: Toolsets;
  readonly discovery: DiscoveryReport;
  readonly approvalGate: ApprovalGateController;
  /** The gate the tools use; the turn runner resumes approvals through it. */
  readonly approvals: ResumableApprovalGate;
  readonly approvalStore: ApprovalStore;
  readonly processes: ProcessTable;
  /**
   * Command process groups of this process, recorded under HERMES_HOME; `start()` (the gateway and
   * worker do) sweeps those left by processes that died.
   */
  readonly commandGroups: CommandGroupLedger;
  readonly tasks: AgentTaskTable;
  readonly memoryStore: MemoryStore;
  readonly todoStore: TodoStore;
  /** The connection the runtime opened for the approval store, when Redis is configured. */
  readonly redis: Redis | undefined;
  /**
   * The MCP servers of `mcp_servers:` (toolsets `mcp-<name>`): nothing connects until
   * `mcp.start()`, which returns at once (the gateway and worker call it when they start).
   */
  readonly mcp: McpManager;
  /** Where chats and unattended sessions run commands, and why: one line each (for /readyz). */
  terminalPlacement(): string[];
  /** Stops background processes and closes what the runtime opened; idempotent. */
  close(): Promise<void>;
}

export interface CreateToolRuntimeOptions {
  readonly config: Config;
  readonly logger: Logger;
  /** The environment commands start from (secrets are scrubbed by the terminal). */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /** Folder of the built-in tools (src/tools). */
  readonly builtinToolsDir: string;
  /**
   * Where approval decisions live when Redis is not configured (the gateway passes the SQLite
   * one so pending approvals survive a restart). Default: in memory (CLI use).
   */
  readonly localApprovalStore?: () => ApprovalStore;
  /** The transcript store behind `session_search`; without it the tool is unavailable. */
  readonly sessionSearch?: SessionSearchService;
  /** The gateway's scheduled tasks behind the `cronjob` tool; without it the tool is unavailable. */
  readonly cronjobs?: CronjobService;
  /**
   * The shared database (DATABASE_URL): memory entries, todo lists, the always-allowlist and
   * spilled-over results live there instead of in HERMES_HOME (only), so a worker on any machine
   * sees them; file tools fetch spilled results and chat attachments stored by other machines.
   */
  readonly sharedState?: { readonly pool: PgPool };
}

/**
 * Builds the tool side of the gateway: approval store and gate, process table, registry with
 * every discovered tool, and the toolsets. Registration is sealed before this returns.
 */
export async function createToolRuntime(options: CreateToolRuntimeOptions): Promise<ToolRuntime> {
  const { config, logger } = options;
  const redis =
    config.redis.url === undefined ? undefined : new Redis(config.redis.url, { maxRetriesPerRequest: 3 });
  redis?.on('error', (error: Error) => logger.warn({ err: error.message }, 'redis connection error'));
  const approvalStore =
    redis !== undefined
      ? createRedisApprovalStore({ redis, keyPrefix: `${config.redis.prefix}:approval:` })
      : (options.localApprovalStore?.() ?? createMemoryApprovalStore());
  const shared = options.sharedState;
  const configAllowlist = createPermanentAllowlist({
    initial: config.command_allowlist,
    configPath: config.configPath,
    logger,
  });
  // With a shared database an "always" answer goes there, so every process's gate sees it.
  const allowlist =
    shared === undefined
      ? configAllowlist
      : createSharedAllowlist({
          config: configAllowlist,
          shared: createPgAllowlistEntries(shared.pool),
          logger,
        });
  const approvalGate = createApprovalGate({
    config,
    store: approvalStore,
    logger,
    allowlist,
    ...optionalReviewer(config, logger),
  });
  const approvals = createResumableApprovalGate(approvalGate);
  const commandGroups = createCommandGroupLedger({ dir: join(config.home, 'run', 'command-groups'), logger });
  const processes = createProcessTable({ ledger: commandGroups });
  const tasks = createAgentTaskTable();
  const memoryStore = new MemoryStore({
    root: join(config.home, 'memories'),
    ...(shared === undefined ? {} : { entries: createPgMemoryEntries(shared.pool) }),
  });
  const todoStore = new TodoStore(
    shared === undefined ? {} : { persistence: createPgTodoPersistence(shared.pool), shared: true },
  );
  let host: { registry: Registry; toolsets: Toolsets } | undefined;
  const subAgent = createSubAgentRunner({
    config,
    logger,
    tasks,
    host: () => {
      if (host === undefined) throw new Error('sub-agents are not ready yet (the gateway is still starting)');
      return host;
    },
  });
  const sharedFiles = shared === undefined ? undefined : createPgSharedFiles(shared.pool);
  const services: ToolServices = {
    config,
    logger,
    approvalGate: approvals.gate,
    processes,
    commandGroups,
    baseEnv: options.baseEnv,
    memoryStore,
    todoStore,
    subAgent,
    ...(options.sessionSearch !== undefined ? { sessionSearch: options.sessionSearch } : {}),
    ...(options.cronjobs !== undefined ? { cronjobs: options.cronjobs } : {}),
    ...(sharedFiles === undefined ? {} : { sharedFiles }),
    ...discordService(config),
    ...feishuService(config, logger),
  };
  const registry = createRegistry({
    services,
    logger,
    ...(sharedFiles === undefined ? {} : { sharedFiles }),
  });
  const discovery = await discoverTools({
    registry,
    dirs: [options.builtinToolsDir, join(config.home, 'plugins'), ...config.tools.plugin_dirs],
    logger,
  });
  registry.seal();
  const toolsets = createToolsets(registry, { ...mcpToolsetSpecs(config), ...config.tools.custom_toolsets });
  const mcp = createMcpManager({ config, registry, baseEnv: options.baseEnv, logger });
  host = { registry, toolsets };

  let closing: Promise<void> | undefined;
  return {
    config,
    logger,
    registry,
    toolsets,
    discovery,
    approvalGate,
    approvals,
    approvalStore,
    processes,
    commandGroups,
    tasks,
    memoryStore,
    todoStore,
    redis,
    mcp,
    terminalPlacement: () => placementSummary(services),
    close() {
      closing ??= (async () => {
        await mcp.close();
        await processes.close();
        commandGroups.close();
        if (redis !== undefined) await redis.quit().catch(() => redis.disconnect());
      })();
      return closing;
    },
  };
}

/** The Discord tools' service (REST only, so workers have it too) when DISCORD_BOT_TOKEN is set. */
function discordService(config: Config): { discord?: DiscordToolService } {
  const operations = discordToolOperationsFromConfig(config);
  if (operations === undefined) return {};
  const admins = resolvePlatformAccess(config, 'discord').adminUsers;
  return { discord: { ...operations, isAdmin: (userId) => userId !== '' && admins.has(userId) } };
}

/** The Feishu document reader (API calls only, so workers have it too) when Feishu is configured. */
function feishuService(config: Config, logger: Logger): { feishuDocs?: FeishuDocService } {
  const reader = feishuDocReaderFromConfig(config, logger);
  return reader === undefined ? {} : { feishuDocs: reader };
}

function optionalReviewer(config: Config, logger: Logger): { smartReviewer?: SmartReviewer } {
  if (config.approvals.mode !== 'smart') return {};
  const client = createModelClient(config);
  const model = config.model.auxiliary_model ?? config.model.name;
  if (client === undefined || model === undefined) {
    logger.warn('approvals.mode is smart but no model is configured: every flagged command goes to a human');
    return {};
  }
  return {
    smartReviewer: createSmartReviewer({ client, model, policy: config.approvals.smart_policy, logger }),
  };
}
