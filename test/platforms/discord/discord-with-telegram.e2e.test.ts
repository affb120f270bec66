import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTelegramAdapter } from '../../../src/platforms/telegram/create-telegram-adapter.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/fake-discord.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type FakeTelegram, startFakeTelegram } from '../../fakes/fake-telegram.js';
import { deleteKeys, type QueueMode, waitFor } from '../../gateway/e2e/gateway-kit.js';
import { testConfig } from '../../helpers/test-config.js';
import { ANN, captureLogs } from '../telegram/telegram-kit.js';
import { type DiscordGateway, gatewayHome, removeDirs, startDiscordGateway } from './discord-gateway-kit.js';

interface Readiness {
  status: string;
  checks: { name: string; ok: boolean; reason?: string }[];
}

describe.each<QueueMode>(['embedded', 'bullmq'])(
  'Discord failing next to Telegram in one gateway (%s queue)',
  (mode) => {
    let model: FakeOpenAi;
    let discord: FakeDiscord;
    let telegram: FakeTelegram;
    let dirs: ReturnType<typeof gatewayHome>;
    let running: DiscordGateway | undefined;

    beforeAll(async () => {
      model = await startFakeOpenAi();
    });
    afterAll(async () => {
      await model.close();
    });
    beforeEach(async () => {
      discord = await startFakeDiscord({ heartbeatIntervalMs: 250 });
      telegram = await startFakeTelegram();
      dirs = gatewayHome(
        [
          'gateway:',
          `  allowed_users: ["telegram:${ANN.id}", "discord:${discord.seed.users.alice.id}"]`,
        ].join('\n'),
      );
    });
    afterEach(async () => {
      await running?.gw.stop();
      running = undefined;
      await discord.close();
      await telegram.close();
      removeDirs(dirs.home, dirs.workdir);
      if (mode === 'bullmq') await deleteKeys(`${dirs.redisPrefix}*`);
      model.reset();
    });

    async function start(token?: string) {
      const env = { TELEGRAM_BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: telegram.apiRoot };
      const tg = createTelegramAdapter({
        config: testConfig(dirs.home, { ...env, TERMINAL_CWD: dirs.workdir }),
        logger: captureLogs().logger,
        token: telegram.token,
        mode: 'polling',
        backoffMs: 20,
      });
      running = await startDiscordGateway({
        fake: discord,
        model,
        mode,
        ...dirs,
        env,
        extra: [tg],
        ...(token !== undefined ? { token } : {}),
      });
      return running;
    }

    async function readiness(gw: DiscordGateway): Promise<{ code: number; body: Readiness }> {
      const response = await fetch(`${gw.gw.baseURL.replace(/\/v1$/, '')}/readyz`);
      return { code: response.status, body: (await response.json()) as Readiness };
    }

    it('keeps answering on Telegram when Discord refuses the token (401), and /readyz says why', async () => {
      const gw = await start('MTAw.refused.a-token-discord-does-not-know');
      model.script({ content: 'Telegram still works.' });
      telegram.sendText({ chatId: ANN.id, from: ANN, text: 'are you there?' });
      await waitFor(() => telegram.messages(ANN.id).some((m) => m.text === 'Telegram still works.'));
      const { code, body } = await readiness(gw);
      expect(code).toBe(503);
      const discordCheck = body.checks.find((c) => c.name === 'platform:discord');
      expect(discordCheck?.ok).toBe(false);
      expect(discordCheck?.reason).toMatch(/rejected the bot token.*DISCORD_BOT_TOKEN/);
      expect(body.checks.find((c) => c.name === 'platform:telegram')?.ok).toBe(true);
      expect(JSON.stringify(body)).not.toContain('a-token-discord-does-not-know');
    });

    it('keeps answering on Telegram when the Discord token is reset while running', async () => {
      const gw = await start();
      await waitFor(async () => (await readiness(gw)).code === 200);
      discord.revokeToken();
      await waitFor(async () => (await readiness(gw)).code === 503);
      model.script({ content: 'Still here.' });
      telegram.sendText({ chatId: ANN.id, from: ANN, text: 'hello?' });
      await waitFor(() => telegram.messages(ANN.id).some((m) => m.text === 'Still here.'));
      const { body } = await readiness(gw);
      expect(body.checks.find((c) => c.name === 'platform:discord')?.reason).toMatch(/4004|token/);
    });

    it('keeps answering on Telegram while the Discord gateway cannot be reached', async () => {
      discord.gateway.refuseConnections(1_000_000);
      const gw = await start();
      model.script({ content: 'Telegram is fine.' });
      telegram.sendText({ chatId: ANN.id, from: ANN, text: 'ping' });
      await waitFor(() => telegram.messages(ANN.id).some((m) => m.text === 'Telegram is fine.'));
      const { body } = await readiness(gw);
      expect(body.checks.find((c) => c.name === 'platform:discord')).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/Discord gateway/),
      });
    });
  },
);
