import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { stringify } from 'yaml';
import { createGateway, type Gateway } from '../../src/app/create-gateway.js';
import type { Config } from '../../src/config/config-schema.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { PlatformAdapter } from '../../src/platforms/adapter.js';
import { createDiscordAdapter } from '../../src/platforms/discord/create-discord-adapter.js';
import { telegramAdapterFromConfig } from '../../src/platforms/telegram/telegram-platform.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { type FakeOpenAi, startFakeOpenAi } from '../fakes/fake-openai.js';
import { type FakeTelegram, startFakeTelegram } from '../fakes/fake-telegram.js';
import { TOOLS_DIR } from '../gateway/e2e/gateway-kit.js';
import { silentLogger, testConfig } from '../helpers/test-config.js';
import { NO_IDENTIFY_THROTTLE } from '../platforms/discord/discord-kit.js';

export const ALLOWED_TELEGRAM_USER = 4242;

/** The secrets of a `FuzzGateway`: known values, so a test can look for them in what came out. */
export interface FuzzSecrets {
  readonly openAiKey: string;
  readonly apiKey: string;
  readonly telegramWebhookSecret: string;
  readonly routeSecret: string;
  /** The Discord bot token, when a fake Discord was given. */
  readonly discordToken?: string;
}

export interface FuzzGateway {
  readonly gateway: Gateway;
  /** HERMES_HOME (config.yaml with the route secret) and the terminal's working directory. */
  readonly home: string;
  readonly workdir: string;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly model: FakeOpenAi;
  readonly telegram: FakeTelegram;
  readonly secrets: FuzzSecrets;
  /** Raw POST on the gateway's server; answers status and body text. */
  post(path: string, body: string | Buffer, headers: Record<string, string>): Promise<HttpReply>;
  close(): Promise<void>;
}

export interface HttpReply {
  readonly status: number;
  readonly text: string;
}

/**
 * One real gateway serving every inbound HTTP surface at once, on a random loopback port:
 * Telegram in webhook mode (against the fake Bot API), the OpenAI-compatible API server, and two
 * signed webhook routes (bearer with a filter, GitHub HMAC), with the fake model behind them.
 * Rate limits and the auth lockout are set out of reach, so hostile requests keep reaching the
 * handlers. `logger` receives the gateway's and the adapters' logs. With `discord`, a Discord
 * adapter (real discord.js) joins, against that fake; `allowedUsers` are added to the allowlist.
 */
export async function startFuzzGateway(
  options: {
    /** A logger, or how to make one from the loaded config (the gateway's own, with its secrets). */
    readonly logger?: Logger | ((config: Config) => Logger);
    readonly secrets?: Partial<FuzzSecrets>;
    readonly discord?: FakeDiscord;
    readonly allowedUsers?: readonly string[];
  } = {},
): Promise<FuzzGateway> {
  const secrets: FuzzSecrets = {
    openAiKey: 'sk-fuzz-openai-0123456789abcdef',
    apiKey: 'fuzz-api-key-0123456789',
    telegramWebhookSecret: 'fuzz-tg-webhook-secret-0123',
    routeSecret: 'fuzz-route-secret-0123456789',
    ...options.secrets,
    ...(options.discord === undefined ? {} : { discordToken: options.discord.token }),
  };
  const model = await startFakeOpenAi();
  const telegram = await startFakeTelegram();
  const home = mkdtempSync(join(tmpdir(), 'hermes-fuzz-gw-'));
  const workdir = mkdtempSync(join(tmpdir(), 'hermes-fuzz-gw-work-'));
  writeFileSync(
    join(home, 'config.yaml'),
    stringify({
      http: { port: 0 },
      gateway: { allowed_users: [`telegram:${ALLOWED_TELEGRAM_USER}`, ...(options.allowedUsers ?? [])] },
      platforms: {
        webhook: {
          enabled: true,
          lockout_failures: 1_000_000,
          routes: {
            bearer: {
              auth: 'bearer',
              secret: secrets.routeSecret,
              prompt: 'Event {action} on {repository.name}: {issue.title}',
              filters: { action: ['opened', 'closed', 1, true] },
              rate_limit: 100_000,
            },
            github: { auth: 'github', secret: secrets.routeSecret, rate_limit: 100_000 },
          },
        },
      },
    }),
  );
  const discordEnv: Record<string, string> =
    options.discord === undefined
      ? {}
      : {
          DISCORD_BOT_TOKEN: options.discord.token,
          DISCORD_API_ROOT: options.discord.apiRoot,
          DISCORD_COMMAND_SYNC: 'guild',
        };
  const config = loadConfig({
    home,
    env: {
      ...discordEnv,
      TERMINAL_CWD: workdir,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: secrets.openAiKey,
      HERMES_MODEL: 'fake-model',
      API_SERVER_ENABLED: 'true',
      API_SERVER_KEY: secrets.apiKey,
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      TELEGRAM_WEBHOOK_URL: 'https://bot.example/telegram/webhook',
      TELEGRAM_WEBHOOK_SECRET: secrets.telegramWebhookSecret,
    },
  });
  const logger =
    typeof options.logger === 'function' ? options.logger(config) : (options.logger ?? silentLogger);
  const adapter = telegramAdapterFromConfig(config, logger);
  if (adapter === undefined) throw new Error('no Telegram adapter from the config');
  const adapters: PlatformAdapter[] = [adapter];
  if (options.discord !== undefined) {
    adapters.push(
      createDiscordAdapter({
        config: testConfig(home, { ...discordEnv, TERMINAL_CWD: workdir }),
        logger,
        token: options.discord.token,
        backoffMs: 20,
        startWaitMs: 5_000,
        clientOptions: NO_IDENTIFY_THROTTLE,
      }),
    );
  }
  let gateway: Gateway | undefined;
  const cleanup = async () => {
    await gateway?.close();
    await telegram.close();
    await model.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(workdir, { recursive: true, force: true });
  };
  let origin: string;
  try {
    gateway = await createGateway({
      config,
      logger,
      baseEnv: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: workdir },
      builtinToolsDir: TOOLS_DIR,
      role: 'gateway',
      adapters,
    });
    origin = (await gateway.start()) ?? '';
  } catch (error) {
    await cleanup();
    throw error;
  }
  const started = gateway;
  return {
    gateway: started,
    home,
    workdir,
    origin,
    model,
    telegram,
    secrets,
    async post(path, body, headers) {
      const response = await fetch(`${origin}${path}`, { method: 'POST', headers, body });
      return { status: response.status, text: await response.text() };
    },
    close: cleanup,
  };
}
