import { afterEach, describe, expect, it } from 'vitest';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import { createTelegramAdapter } from '../../../src/platforms/telegram/create-telegram-adapter.js';
import { telegramAdapterFromConfig } from '../../../src/platforms/telegram/telegram-platform.js';
import { secretMatches } from '../../../src/platforms/telegram/webhook-route.js';
import { makeTempHome, silentLogger, testConfig } from '../../helpers/test-config.js';
import { ANN, recordingSink, setupTelegram, type TelegramSetup, WEBHOOK_SECRET } from './telegram-kit.js';

describe('telegram webhook mode', () => {
  let setup: TelegramSetup | undefined;
  afterEach(async () => {
    await setup?.close();
    setup = undefined;
  });

  async function post(body: unknown, secret?: string): Promise<number> {
    const url = setup?.fake.webhook?.url ?? '';
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(secret !== undefined ? { 'x-telegram-bot-api-secret-token': secret } : {}),
      },
      body: JSON.stringify(body),
    });
    await response.arrayBuffer();
    return response.status;
  }

  const update = (id: number) => ({
    update_id: id,
    message: { message_id: 1, date: 0, chat: { id: ANN.id, type: 'private' }, from: ANN, text: 'hi' },
  });

  it('sets the webhook with its secret, and refuses posts without the right secret', async () => {
    setup = await setupTelegram('webhook');
    const recorder = recordingSink();
    await setup.adapter.start(recorder.sink);
    expect(setup.fake.callsOf('setWebhook')[0]?.payload).toMatchObject({
      secret_token: WEBHOOK_SECRET,
      allowed_updates: ['message', 'callback_query'],
    });
    expect(setup.fake.callsOf('deleteWebhook')).toHaveLength(0);
    expect(await post(update(1))).toBe(401);
    expect(await post(update(2), 'wrong-secret')).toBe(401);
    expect(await post(update(3), `${WEBHOOK_SECRET}x`)).toBe(401);
    expect(recorder.events).toHaveLength(0);
    expect(await post(update(4), WEBHOOK_SECRET)).toBe(200);
    expect(recorder.events.map((e) => e.eventId)).toEqual(['4']);
    // Telegram repeating an update it already got a 200 for hands nothing over again.
    expect(await post(update(4), WEBHOOK_SECRET)).toBe(200);
    expect(recorder.events).toHaveLength(1);
  });

  it('answers 500 until the gateway accepts the update, so Telegram delivers it again', async () => {
    setup = await setupTelegram('webhook');
    const recorder = recordingSink();
    let fail = true;
    recorder.answerWith(async () => {
      if (fail) throw new Error('queue unavailable');
      return { status: 'accepted' };
    });
    await setup.adapter.start(recorder.sink);
    const id = setup.fake.sendText({ chatId: ANN.id, from: ANN, text: 'hello' });
    expect(await setup.fake.outcome(id, 1)).toBe('not_acknowledged');
    fail = false;
    setup.fake.redeliver(id);
    expect(await setup.fake.outcome(id, 2)).toBe('acknowledged');
    expect(recorder.events.map((e) => e.eventId)).toEqual([String(id), String(id)]);
  });

  it('drops a malformed update with 200, and answers 503 while stopped', async () => {
    setup = await setupTelegram('webhook');
    const recorder = recordingSink();
    await setup.adapter.start(recorder.sink);
    expect(await post({ nonsense: true }, WEBHOOK_SECRET)).toBe(200);
    const url = setup.fake.webhook?.url ?? '';
    await setup.adapter.stop();
    expect(setup.fake.webhook?.url).toBe(url);
    expect(await post(update(9), WEBHOOK_SECRET)).toBe(503);
    expect(recorder.events).toHaveLength(0);
  });

  it('refuses to start in webhook mode without a secret', () => {
    const { home, cleanup } = makeTempHome();
    try {
      const config = testConfig(home, {
        TELEGRAM_BOT_TOKEN: '1:AAx',
        TELEGRAM_WEBHOOK_URL: 'https://bot.example/telegram/webhook',
      });
      expect(() => telegramAdapterFromConfig(config, silentLogger)).toThrow(/TELEGRAM_WEBHOOK_SECRET/);
      try {
        createTelegramAdapter({ config, logger: silentLogger, token: '1:AAx', mode: 'webhook' });
      } catch (error) {
        expect(isHermesError(error, 'config_invalid')).toBe(true);
      }
      expect(telegramAdapterFromConfig(testConfig(home, {}), silentLogger)).toBeUndefined();
      const polling = telegramAdapterFromConfig(
        testConfig(home, { TELEGRAM_BOT_TOKEN: '1:AAx' }),
        silentLogger,
      );
      expect(polling?.mode).toBe('polling');
    } finally {
      cleanup();
    }
  });

  it('compares secrets in constant time, whatever their lengths', () => {
    expect(secretMatches('abc', 'abc')).toBe(true);
    expect(secretMatches('abc', 'abd')).toBe(false);
    expect(secretMatches('', 'abc')).toBe(false);
    expect(secretMatches('abcd', 'abc')).toBe(false);
    // A handler built without a secret (polling mode) lets nothing through, not even an empty header.
    expect(secretMatches('', '')).toBe(false);
  });
});
