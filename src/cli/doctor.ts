import { existsSync } from 'node:fs';
import { stringify } from 'yaml';
import type { Config } from '../config/config-schema.js';
import { maskSecrets } from '../config/mask-secrets.js';
import { describeCronJob } from '../gateway/cron/describe-cron-job.js';
import type { CronJob } from '../gateway/store/cron-store.js';
import type { PlatformDefinition } from '../platforms/platform.js';
import type { Registry } from '../registry/create-registry.js';
import { passingEnvNames } from '../tools/terminal/scrub-env.js';
import { placementSummary } from '../tools/terminal/terminal-placement.js';
import { type CliIo, EXIT_OK } from './cli-io.js';
import { type CodeSource, codeSourceText } from './code-source.js';
import { stateSection } from './machine-local-state.js';

export interface DoctorDeps {
  readonly config: Config;
  readonly registry: Registry;
  /** Pings Redis when configured; resolves to an error text, or undefined when it answered. */
  readonly pingRedis: (url: string) => Promise<string | undefined>;
  /** The platform list (src/app/platforms.ts): each describes its section of `platforms:`. */
  readonly platforms: readonly PlatformDefinition[];
  /** What bin/hermes-gateway runs: the compiled build, or the sources and why. */
  readonly code: CodeSource;
  /** Each configured MCP server after a connection attempt (`mcp_servers:`); none when absent. */
  readonly mcpServers?: () => readonly Check[];
  /** The scheduled tasks in the state store (none when it does not exist yet). */
  readonly cronJobs?: () => Promise<readonly CronJob[]>;
}

export interface Check {
  readonly name: string;
  readonly usable: boolean;
  readonly detail: string;
}

/** `hermes-gateway doctor`: the resolved configuration (secrets masked) and what is usable and why not. */
export async function runDoctor(io: CliIo, deps: DoctorDeps): Promise<number> {
  const { config, registry } = deps;
  io.stdout(
    `# hermes-gateway doctor\n# HERMES_HOME: ${config.home}\n# config file: ${configFileText(config.configPath)}\n# code: ${codeSourceText(deps.code)}\n\n`,
  );
  io.stdout('## Resolved configuration (secrets masked)\n');
  const { home: _home, configPath: _path, ...rest } = maskSecrets(config) as Record<string, unknown>;
  io.stdout(`${stringify(rest).trimEnd()}\n\n`);

  const platforms = platformChecks(config, deps.platforms);
  const checks: Check[] = [modelCheck(config), await redisCheck(config, deps.pingRedis), ...platforms];
  io.stdout('## Services and platforms\n');
  for (const check of checks)
    io.stdout(`  ${check.usable ? 'ok  ' : 'no  '} ${check.name.padEnd(12)} ${check.detail}\n`);

  const mcp = deps.mcpServers?.() ?? [];
  if (mcp.length > 0) {
    io.stdout('\n## MCP servers\n');
    for (const check of mcp)
      io.stdout(`  ${check.usable ? 'ok  ' : 'no  '} ${check.name.padEnd(12)} ${check.detail}\n`);
  }

  io.stdout('\n## Tools\n');
  const status = registry.status();
  const width = Math.max(4, ...status.map((s) => s.name.length));
  for (const s of status) {
    io.stdout(
      `  ${s.available ? 'ok  ' : 'no  '} ${s.name.padEnd(width)} ${s.available ? '' : (s.reason ?? '')}\n`,
    );
  }
  const unavailable = status.filter((s) => !s.available).length;
  io.stdout(`\n${status.length - unavailable} of ${status.length} tools available.\n`);
  io.stdout(terminalSection(config, registry));
  if (deps.cronJobs !== undefined) io.stdout(await cronSection(deps.cronJobs));
  io.stdout(stateSection(config));
  return EXIT_OK;
}

/** Scheduled tasks: how many, and each one whose last run could not be delivered, with the reason. */
async function cronSection(list: () => Promise<readonly CronJob[]>): Promise<string> {
  let jobs: readonly CronJob[];
  try {
    jobs = await list();
  } catch (error) {
    return `\n## Scheduled tasks\n  the state store could not be read: ${(error as Error).message}\n`;
  }
  const count = (state: CronJob['state']) => jobs.filter((job) => job.state === state).length;
  const failed = jobs.filter((job) => job.delivery?.status === 'failed');
  const lines = [
    '\n## Scheduled tasks\n',
    `  ${jobs.length} task(s): ${count('active')} active, ${count('paused')} paused, ${count('done')} done; ${failed.length} with a failed last delivery\n`,
  ];
  for (const job of failed) {
    const where = `${job.chat.platform} ${job.chat.chatId}${job.chat.threadId === undefined ? '' : `/${job.chat.threadId}`}`;
    lines.push(`  no   ${where}\n${describeCronJob(job).replace(/^/gm, '       ')}\n`);
  }
  return lines.join('');
}

/** Where each kind of session runs commands and why, and which variables they receive (names only). */
function terminalSection(config: Config, registry: Registry): string {
  const passing = passingEnvNames(registry.services.baseEnv, config.terminal.env_passthrough);
  const lines = ['\n## Terminal\n'];
  for (const line of placementSummary(registry.services)) lines.push(`  ${line}\n`);
  lines.push(`  environment of commands (allowlist): ${passing.base.join(', ')}\n`);
  lines.push(
    `  passed through (terminal.env_passthrough): ${passing.passthrough.length > 0 ? passing.passthrough.join(', ') : 'none'}\n`,
  );
  return lines.join('');
}

function modelCheck(config: Config): Check {
  const { model } = config;
  if (model.name === undefined) {
    return {
      name: 'model',
      usable: false,
      detail: 'no model configured: set HERMES_MODEL (and OPENAI_BASE_URL / OPENAI_API_KEY)',
    };
  }
  if (model.base_url === undefined && model.api_key === undefined) {
    return {
      name: 'model',
      usable: false,
      detail: `model ${model.name} has no endpoint: set OPENAI_BASE_URL or OPENAI_API_KEY`,
    };
  }
  return {
    name: 'model',
    usable: true,
    detail: `${model.name} at ${model.base_url ?? 'https://api.openai.com/v1'}`,
  };
}

async function redisCheck(config: Config, ping: DoctorDeps['pingRedis']): Promise<Check> {
  const url = config.redis.url;
  if (url === undefined)
    return {
      name: 'redis',
      usable: true,
      detail: 'not configured: embedded queue (single process)',
    };
  const failure = await ping(url);
  return failure === undefined
    ? { name: 'redis', usable: true, detail: 'answered PING' }
    : { name: 'redis', usable: false, detail: `unreachable: ${failure}` };
}

/**
 * One line per platform of each section of `platforms:`, as the platform describes itself (the
 * web chat shares the API server's section), or a line saying the section has none yet.
 */
function platformChecks(config: Config, platforms: readonly PlatformDefinition[]): Check[] {
  return (Object.keys(config.platforms) as (keyof Config['platforms'])[]).flatMap((section) => {
    const definitions = platforms.filter((platform) => platform.configSection === section);
    if (definitions.length === 0) {
      return [{ name: section, usable: false, detail: `this build has no ${section} platform yet` }];
    }
    return definitions.map((definition) => ({ name: definition.name, ...definition.describe(config) }));
  });
}

/** The config file's path, or that there is none and every setting is a default or from the environment. */
function configFileText(path: string): string {
  return existsSync(path) ? path : `none (all defaults and environment variables; ${path} would be read)`;
}
