import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToolRuntime, type ToolRuntime } from './app/create-tool-runtime.js';
import { PLATFORMS } from './app/platforms.js';
import { runApprovalCheck } from './cli/approval-check.js';
import { type CliIo, EXIT_OK, EXIT_USAGE } from './cli/cli-io.js';
import type { CodeSource } from './cli/code-source.js';
import { connectMcpForCli } from './cli/connect-mcp-for-cli.js';
import { runDoctor } from './cli/doctor.js';
import { openStoreForCli, runPairing } from './cli/pairing.js';
import { runStart } from './cli/start.js';
import { runToolsList } from './cli/tools-list.js';
import type { Config } from './config/config-schema.js';
import { secretValues } from './config/mask-secrets.js';
import { HermesError, isHermesError } from './errors/hermes-error.js';
import { createCronService, cronSettingsOf } from './gateway/cron/cron-service.js';
import { explainRedisError, pingOnce } from './gateway/redis-reachable.js';
import { createLogger } from './logging/create-logger.js';
import { describeMcpState } from './tools/mcp/create-mcp-manager.js';

export interface CliDeps {
  /** Loads and validates the configuration (throws HermesError config_invalid). */
  readonly loadConfig: () => Config;
  /** The environment commands run by the agent start from. */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /** Resolves when the process is asked to stop (SIGTERM/SIGINT). */
  readonly stopSignal: () => Promise<string>;
  /** What bin/hermes-gateway runs: the compiled build, or the sources and why (banner, doctor). */
  readonly code: CodeSource;
}

const USAGE = `usage: hermes-gateway <command> [options]

commands:
  start                       run the gateway (what npm start runs)
  worker                      run queue workers only (needs REDIS_URL)
  tools list [--toolset NAME] [--json]
                              list tools with availability, or the tools of one toolset
  approval check [--json] [--stdin] [COMMAND...]
                              show how the approval gate classifies commands
  pairing list|approve|revoke|clear-pending
                              manage paired chat users
  doctor                      show the resolved configuration and what is usable
`;

const BUILTIN_TOOLS_DIR = fileURLToPath(new URL('./tools/', import.meta.url));

export async function runCli(argv: readonly string[], io: CliIo, deps: CliDeps): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    (command === undefined ? io.stderr : io.stdout)(USAGE);
    return command === undefined ? EXIT_USAGE : EXIT_OK;
  }
  try {
    switch (command) {
      case 'approval': {
        if (rest[0] !== 'check') return usage(io, `approval: unknown subcommand '${rest[0] ?? ''}'`);
        const config = deps.loadConfig();
        return await runApprovalCheck(rest.slice(1), io, { hermesHome: config.home });
      }
      case 'tools': {
        if (rest[0] !== 'list') return usage(io, `tools: unknown subcommand '${rest[0] ?? ''}'`);
        return await withRuntime(deps, 'warn', io, async (runtime) => {
          await connectMcpForCli(runtime);
          return runToolsList(rest.slice(1), io, runtime);
        });
      }
      case 'doctor':
        return await withRuntime(deps, 'warn', io, async (runtime) => {
          await connectMcpForCli(runtime);
          return runDoctor(io, {
            config: runtime.config,
            registry: runtime.registry,
            pingRedis,
            platforms: PLATFORMS,
            code: deps.code,
            mcpServers: () =>
              runtime.mcp.states().map((state) => ({
                name: state.name,
                usable: state.status === 'connected',
                detail: describeMcpState(state),
              })),
            cronJobs: async () => {
              // Nothing to list before the first start (doctor never creates the store).
              if (
                runtime.config.database.url === undefined &&
                !existsSync(join(runtime.config.home, 'state.db'))
              )
                return [];
              const store = await openStoreForCli(runtime.config, runtime.logger);
              try {
                return await store.listCronJobs();
              } finally {
                await store.close();
              }
            },
          });
        });
      case 'start':
      case 'worker': {
        const config = deps.loadConfig();
        const logger = createLogger({ level: config.logging.level, secrets: secretValues(config) });
        return await runStart(
          io,
          {
            config,
            logger,
            baseEnv: deps.baseEnv,
            builtinToolsDir: BUILTIN_TOOLS_DIR,
            stopSignal: deps.stopSignal,
            code: deps.code,
          },
          command === 'start' ? 'gateway' : 'worker',
        );
      }
      case 'pairing': {
        const config = deps.loadConfig();
        const logger = createLogger({
          level: 'warn',
          secrets: secretValues(config),
          destination: { write: (line: string) => io.stderr(line) },
        });
        const store = await openStoreForCli(config, logger);
        try {
          return await runPairing(rest, io, { store, logger });
        } finally {
          await store.close();
        }
      }
      default:
        return usage(io, `unknown command '${command}'`);
    }
  } catch (error) {
    if (
      isHermesError(error, 'config_invalid') ||
      isHermesError(error, 'config_unreadable') ||
      isHermesError(error, 'home_locked') ||
      isHermesError(error, 'redis_unreachable') ||
      isHermesError(error, 'address_in_use')
    ) {
      io.stderr(`${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

function usage(io: CliIo, message: string): number {
  io.stderr(`${message}\n\n${USAGE}`);
  return EXIT_USAGE;
}

async function withRuntime(
  deps: CliDeps,
  level: string | undefined,
  io: CliIo,
  body: (runtime: ToolRuntime) => number | Promise<number>,
): Promise<number> {
  const config = deps.loadConfig();
  const logger = createLogger({
    level: level ?? config.logging.level,
    secrets: secretValues(config),
    ...(level !== undefined ? { destination: { write: (line: string) => io.stderr(line) } } : {}),
  });
  // The same services the gateway gives its tools, so availability reads as the gateway computes
  // it (session_search needs the session store).
  // A database that does not answer must not stop `doctor` or `tools list`: session_search then
  // reads as unavailable.
  const store = await openStoreForCli(config, logger).catch((error: unknown) => {
    logger.warn({ err: (error as Error).message }, 'state store unavailable');
    return undefined;
  });
  try {
    const runtime = await createToolRuntime({
      config,
      logger,
      baseEnv: deps.baseEnv,
      builtinToolsDir: BUILTIN_TOOLS_DIR,
      ...(store === undefined
        ? {}
        : {
            sessionSearch: store,
            // The scheduled tasks of the same store: listed and changed here, run by the gateway
            // (its scheduler picks up what changed when it starts or reconciles).
            cronjobs: createCronService(
              {
                store,
                submit: () =>
                  Promise.reject(new HermesError('usage', 'scheduled runs are started by a running gateway')),
                settings: cronSettingsOf(config),
                logger,
                now: Date.now,
              },
              () => undefined,
            ),
          }),
    });
    try {
      return await body(runtime);
    } finally {
      await runtime.close();
    }
  } finally {
    await store?.close();
  }
}

/** One PING with a short timeout; resolves to what went wrong in words a user can act on, or undefined. */
async function pingRedis(url: string): Promise<string | undefined> {
  const failure = await pingOnce(url);
  return failure === undefined ? undefined : explainRedisError(url, failure);
}
