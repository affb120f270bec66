import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTelegramAdapter,
  type TelegramAdapter,
} from '../../../src/platforms/telegram/create-telegram-adapter.js';
import type { FakeOpenAi } from '../../fakes/fake-openai.js';
import type { FakeTelegram } from '../../fakes/fake-telegram.js';
import { type QueueMode, startTestGateway, type TestGateway } from '../../gateway/e2e/gateway-kit.js';
import { testConfig } from '../../helpers/test-config.js';
import { type CapturedLogs, captureLogs } from './telegram-kit.js';

export interface TelegramGateway {
  readonly gw: TestGateway;
  readonly adapter: TelegramAdapter;
  readonly logs: CapturedLogs;
  readonly home: string;
  readonly workdir: string;
}

/** A fresh HERMES_HOME with the e2e config (random Redis prefix, port 0) plus `yaml`. */
export function telegramHome(yaml: string): { home: string; workdir: string; redisPrefix: string } {
  const home = mkdtempSync(join(tmpdir(), 'hermes-tg-gw-'));
  const workdir = mkdtempSync(join(tmpdir(), 'hermes-tg-work-'));
  const redisPrefix = `hgtest-${randomBytes(4).toString('hex')}`;
  writeFileSync(
    join(home, 'config.yaml'),
    [
      'http:',
      '  port: 0',
      'redis:',
      `  prefix: ${redisPrefix}`,
      'queue:',
      '  lock_duration_ms: 2000',
      '  stalled_interval_ms: 1000',
      '  shutdown_grace_ms: 2000',
      yaml,
    ].join('\n'),
  );
  return { home, workdir, redisPrefix };
}

/**
 * The whole gateway (embedded queue by default, or BullMQ on the home's Redis prefix) with a
 * Telegram adapter on real grammY, long polling the fake Bot API, and the fake model. Reusing
 * `home` and `workdir` is a restart.
 */
export async function startTelegramGateway(input: {
  readonly fake: FakeTelegram;
  readonly model: FakeOpenAi;
  readonly home: string;
  readonly workdir: string;
  readonly mode?: QueueMode;
}): Promise<TelegramGateway> {
  const env = {
    OPENAI_BASE_URL: input.model.baseURL,
    OPENAI_API_KEY: 'sk-test-0123456789abcdef',
    HERMES_MODEL: 'fake-model',
    TELEGRAM_BOT_TOKEN: input.fake.token,
    TELEGRAM_API_ROOT: input.fake.apiRoot,
  };
  const logs = captureLogs();
  const adapter = createTelegramAdapter({
    config: testConfig(input.home, { ...env, TERMINAL_CWD: input.workdir }),
    logger: logs.logger,
    token: input.fake.token,
    mode: 'polling',
    backoffMs: 20,
  });
  const gw = await startTestGateway({
    mode: input.mode ?? 'embedded',
    env,
    home: input.home,
    workdir: input.workdir,
    adapters: [adapter],
  });
  return { gw, adapter, logs, home: input.home, workdir: input.workdir };
}

export function removeDirs(...dirs: string[]): void {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
