import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../../src/app/create-gateway.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { telegramAdapterFromConfig } from '../../../src/platforms/telegram/telegram-platform.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type FakeTelegram, startFakeTelegram } from '../../fakes/fake-telegram.js';
import { TOOLS_DIR, waitFor } from '../../gateway/e2e/gateway-kit.js';
import { silentLogger } from '../../helpers/test-config.js';
import { removeDirs, telegramHome } from './telegram-gateway-kit.js';
import { ANN, captureLogs } from './telegram-kit.js';

const SECRET = 'tg-webhook-secret-0123456789';

describe('the gateway on Telegram in webhook mode', () => {
  let model: FakeOpenAi | undefined;
  let fake: FakeTelegram | undefined;
  let gateway: Gateway | undefined;
  let dirs: { home: string; workdir: string } | undefined;
  afterEach(async () => {
    await gateway?.close();
    await fake?.close();
    await model?.close();
    if (dirs !== undefined) removeDirs(dirs.home, dirs.workdir);
  });

  it('serves /telegram/webhook on the gateway server, checks the secret, and answers', async () => {
    model = await startFakeOpenAi();
    fake = await startFakeTelegram();
    dirs = telegramHome('gateway:\n  allowed_users: ["telegram:4242"]');
    const config = loadConfig({
      home: dirs.home,
      env: {
        TERMINAL_CWD: dirs.workdir,
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: 'sk-test-0123456789abcdef',
        HERMES_MODEL: 'fake-model',
        TELEGRAM_BOT_TOKEN: fake.token,
        TELEGRAM_API_ROOT: fake.apiRoot,
        TELEGRAM_WEBHOOK_URL: 'https://bot.example/telegram/webhook',
        TELEGRAM_WEBHOOK_SECRET: SECRET,
      },
    });
    const logs = captureLogs();
    const adapter = telegramAdapterFromConfig(config, logs.logger);
    if (adapter === undefined) throw new Error('no adapter');
    gateway = await createGateway({
      config,
      logger: silentLogger,
      baseEnv: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dirs.workdir },
      builtinToolsDir: TOOLS_DIR,
      role: 'gateway',
      adapters: [adapter],
    });
    if (gateway.app === undefined) throw new Error('no http server');
    const address = await gateway.start();
    expect(fake.webhook).toEqual({ url: 'https://bot.example/telegram/webhook', secret: SECRET });

    const update = {
      update_id: 900,
      message: { message_id: 3, date: 0, chat: { id: ANN.id, type: 'private' }, from: ANN, text: 'hi' },
    };
    const post = async (secret: string) =>
      (
        await fetch(`${address}/telegram/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret },
          body: JSON.stringify(update),
        })
      ).status;
    expect(await post('not-the-secret')).toBe(401);
    expect(model.requests).toHaveLength(0);
    model.script({ content: 'Hello from the webhook.' });
    expect(await post(SECRET)).toBe(200);
    await waitFor(() => fake?.messages(ANN.id).some((m) => m.text === 'Hello from the webhook.') === true);
    const ready = (await (await fetch(`${address}/readyz`)).json()) as { checks: unknown[] };
    expect(ready.checks).toContainEqual({ name: 'platform:telegram', ok: true });
    for (const line of logs.lines) expect(line).not.toContain(fake.token);
  });
});
