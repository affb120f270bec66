import { stringify } from 'yaml';
import type { Config } from '../config/config-schema.js';
import { maskSecrets } from '../config/mask-secrets.js';
import type { Registry } from '../registry/create-registry.js';
import { type CliIo, EXIT_OK } from './cli-io.js';
import { type CodeSource, codeSourceText } from './code-source.js';

export interface DoctorDeps {
  readonly config: Config;
  readonly registry: Registry;
  /** Pings Redis when configured; resolves to an error text, or undefined when it answered. */
  readonly pingRedis: (url: string) => Promise<string | undefined>;
  /** Platforms this build has an adapter for; others are reported as not available yet. */
  readonly adapters: ReadonlySet<string>;
  /** What bin/hermes-gateway runs: the compiled build, or the sources and why. */
  readonly code: CodeSource;
}

interface Check {
  readonly name: string;
  readonly usable: boolean;
  readonly detail: string;
}

/** `hermes-gateway doctor`: the resolved configuration (secrets masked) and what is usable and why not. */
export async function runDoctor(io: CliIo, deps: DoctorDeps): Promise<number> {
  const { config, registry } = deps;
  io.stdout(
    `# hermes-gateway doctor\n# HERMES_HOME: ${config.home}\n# config file: ${config.configPath}\n# code: ${codeSourceText(deps.code)}\n\n`,
  );
  io.stdout('## Resolved configuration (secrets masked)\n');
  const { home: _home, configPath: _path, ...rest } = maskSecrets(config) as Record<string, unknown>;
  io.stdout(`${stringify(rest).trimEnd()}\n\n`);

  const platforms = platformChecks(config).map((check) =>
    check.usable && !deps.adapters.has(check.name)
      ? {
          ...check,
          usable: false,
          detail: `${check.detail}, but this build has no ${check.name} adapter yet`,
        }
      : check,
  );
  const checks: Check[] = [modelCheck(config), await redisCheck(config, deps.pingRedis), ...platforms];
  io.stdout('## Services and platforms\n');
  for (const check of checks)
    io.stdout(`  ${check.usable ? 'ok  ' : 'no  '} ${check.name.padEnd(12)} ${check.detail}\n`);

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
  return EXIT_OK;
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
      detail: 'not configured: embedded queue and store (single process)',
    };
  const failure = await ping(url);
  return failure === undefined
    ? { name: 'redis', usable: true, detail: 'answered PING' }
    : { name: 'redis', usable: false, detail: `unreachable: ${failure}` };
}

function platformChecks(config: Config): Check[] {
  const { telegram, discord, feishu, webhook, api_server } = config.platforms;
  const loopback = ['127.0.0.1', 'localhost', '::1'].includes(config.http.host);
  return [
    telegram.bot_token === undefined
      ? { name: 'telegram', usable: false, detail: 'missing TELEGRAM_BOT_TOKEN' }
      : telegram.webhook_url !== undefined && telegram.webhook_secret === undefined
        ? { name: 'telegram', usable: false, detail: 'TELEGRAM_WEBHOOK_URL needs TELEGRAM_WEBHOOK_SECRET' }
        : { name: 'telegram', usable: true, detail: telegram.webhook_url ? 'webhook mode' : 'long polling' },
    discord.bot_token === undefined
      ? { name: 'discord', usable: false, detail: 'missing DISCORD_BOT_TOKEN' }
      : {
          name: 'discord',
          usable: true,
          detail: `token set; slash commands ${discord.command_sync === 'off' ? 'off' : `synced ${discord.command_sync === 'guild' ? 'per server' : 'globally'}`}${discord.api_root !== undefined ? `; REST at ${discord.api_root}` : ''}`,
        },
    feishu.app_id === undefined || feishu.app_secret === undefined
      ? { name: 'feishu', usable: false, detail: 'missing FEISHU_APP_ID / FEISHU_APP_SECRET' }
      : { name: 'feishu', usable: true, detail: `${feishu.connection_mode} mode` },
    !webhook.enabled
      ? { name: 'webhooks', usable: false, detail: 'disabled (WEBHOOK_ENABLED=true to enable)' }
      : {
          name: 'webhooks',
          usable: true,
          detail: webhook.secret ? 'enabled, default secret set' : 'enabled (routes need their own secrets)',
        },
    !api_server.enabled
      ? { name: 'api-server', usable: false, detail: 'disabled (API_SERVER_ENABLED)' }
      : api_server.key === undefined && !loopback
        ? {
            name: 'api-server',
            usable: false,
            detail: `refuses to bind ${config.http.host} without API_SERVER_KEY`,
          }
        : {
            name: 'api-server',
            usable: true,
            detail: `http://${config.http.host}:${config.http.port}/v1${api_server.key ? ' (key required)' : ''}`,
          },
  ];
}
