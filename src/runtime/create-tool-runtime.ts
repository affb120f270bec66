import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ApprovalStore } from '../approval/approval-store.js';
import { type ApprovalGateController, createApprovalGate } from '../approval/create-approval-gate.js';
import { createMemoryApprovalStore } from '../approval/memory-approval-store.js';
import { createRedisApprovalStore } from '../approval/redis-approval-store.js';
import { createSmartReviewer, type SmartReviewer } from '../approval/smart-reviewer.js';
import type { Config } from '../config/config-schema.js';
import { createRegistry, type Registry } from '../registry/create-registry.js';
import { type DiscoveryReport, discoverTools } from '../registry/discover-tools.js';
import type { ToolServices } from '../registry/tool-services.js';
import { createToolsets, type Toolsets } from '../registry/toolsets.js';
import { MemoryStore } from '../tools/memory/memory-store.js';
import { createProcessTable, type ProcessTable } from '../tools/terminal/process-table.js';
import { TodoStore } from '../tools/todo/todo-store.js';
import { createModelClient } from './create-model-client.js';

export interface ToolRuntime {
  readonly config: Config;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly toolsets: Toolsets;
  readonly discovery: DiscoveryReport;
  readonly approvalGate: ApprovalGateController;
  readonly approvalStore: ApprovalStore;
  readonly processes: ProcessTable;
  readonly redis: Redis | undefined;
  /** Stops background processes and closes connections; idempotent. */
  close(): Promise<void>;
}

export interface CreateToolRuntimeOptions {
  readonly config: Config;
  readonly logger: Logger;
  /** The environment commands start from (secrets are scrubbed by the terminal). */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /** Folder of the built-in tools (src/tools). */
  readonly builtinToolsDir: string;
}

/**
 * Builds the tool side of the gateway: approval store and gate, process table, registry with
 * every discovered tool, and the toolsets. Registration is sealed before this returns.
 */
export async function createToolRuntime(options: CreateToolRuntimeOptions): Promise<ToolRuntime> {
  const { config, logger } = options;
  const redis =
    config.redis.url === undefined
      ? undefined
      : new Redis(config.redis.url, {
          maxRetriesPerRequest: 3,
          enableOfflineQueue: true,
          lazyConnect: false,
        });
  redis?.on('error', (error: Error) => logger.warn({ err: error.message }, 'redis connection error'));
  const approvalStore =
    redis === undefined ? createMemoryApprovalStore() : createRedisApprovalStore({ redis });
  const modelClient = createModelClient(config);
  const reviewerModel = config.model.auxiliary_model ?? config.model.name;
  let smartReviewer: SmartReviewer | undefined;
  if (config.approvals.mode === 'smart') {
    if (modelClient !== undefined && reviewerModel !== undefined) {
      smartReviewer = createSmartReviewer({
        client: modelClient,
        model: reviewerModel,
        policy: config.approvals.smart_policy,
        logger,
      });
    } else {
      logger.warn(
        'approvals.mode is smart but no model is configured: every flagged command goes to a human',
      );
    }
  }
  const approvalGate = createApprovalGate({
    config,
    store: approvalStore,
    logger,
    ...(smartReviewer !== undefined ? { smartReviewer } : {}),
  });
  const processes = createProcessTable();
  const services: ToolServices = {
    config,
    logger,
    approvalGate,
    processes,
    baseEnv: options.baseEnv,
    memoryStore: new MemoryStore({ root: join(config.home, 'memories') }),
    todoStore: new TodoStore(),
  };
  const registry = createRegistry({ services, logger });
  const discovery = await discoverTools({
    registry,
    dirs: [options.builtinToolsDir, join(config.home, 'plugins'), ...config.tools.plugin_dirs],
    logger,
  });
  registry.seal();
  const toolsets = createToolsets(registry, config.tools.custom_toolsets);

  let closing: Promise<void> | undefined;
  return {
    config,
    logger,
    registry,
    toolsets,
    discovery,
    approvalGate,
    approvalStore,
    processes,
    redis,
    close() {
      closing ??= (async () => {
        await processes.close();
        if (redis !== undefined) await redis.quit().catch(() => redis.disconnect());
      })();
      return closing;
    },
  };
}
