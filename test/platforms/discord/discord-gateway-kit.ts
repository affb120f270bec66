import type { PlatformAdapter } from '../../../src/platforms/adapter.js';
import {
  createDiscordAdapter,
  type DiscordAdapter,
} from '../../../src/platforms/discord/create-discord-adapter.js';
import type { FakeDiscord } from '../../fakes/fake-discord.js';
import type { FakeOpenAi } from '../../fakes/fake-openai.js';
import { type QueueMode, startTestGateway, type TestGateway } from '../../gateway/e2e/gateway-kit.js';
import { testConfig } from '../../helpers/test-config.js';
import { type CapturedLogs, captureLogs } from '../telegram/telegram-kit.js';
import { NO_IDENTIFY_THROTTLE } from './discord-kit.js';

export { removeDirs, telegramHome as gatewayHome } from '../telegram/telegram-gateway-kit.js';

export interface DiscordGateway {
  readonly gw: TestGateway;
  readonly adapter: DiscordAdapter;
  readonly logs: CapturedLogs;
}

/**
 * The whole gateway (embedded queue by default, or BullMQ on the home's Redis prefix) with a
 * Discord adapter on real discord.js against the fake Discord, and the fake model. `extra` adds
 * other platforms (a Telegram adapter on the fake Bot API). `token` overrides the bot token.
 */
export async function startDiscordGateway(input: {
  readonly fake: FakeDiscord;
  readonly model: FakeOpenAi;
  readonly home: string;
  readonly workdir: string;
  readonly mode?: QueueMode;
  readonly env?: Record<string, string>;
  readonly token?: string;
  readonly extra?: readonly PlatformAdapter[];
}): Promise<DiscordGateway> {
  const token = input.token ?? input.fake.token;
  const env = {
    OPENAI_BASE_URL: input.model.baseURL,
    OPENAI_API_KEY: 'sk-test-0123456789abcdef',
    HERMES_MODEL: 'fake-model',
    DISCORD_BOT_TOKEN: token,
    DISCORD_API_ROOT: input.fake.apiRoot,
    DISCORD_COMMAND_SYNC: 'guild',
    ...input.env,
  };
  const logs = captureLogs();
  const adapter = createDiscordAdapter({
    config: testConfig(input.home, { ...env, TERMINAL_CWD: input.workdir }),
    logger: logs.logger,
    token,
    backoffMs: 20,
    startWaitMs: 5_000,
    clientOptions: NO_IDENTIFY_THROTTLE,
  });
  const gw = await startTestGateway({
    mode: input.mode ?? 'embedded',
    env,
    home: input.home,
    workdir: input.workdir,
    adapters: [...(input.extra ?? []), adapter],
  });
  return { gw, adapter, logs };
}
