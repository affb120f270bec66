import { afterEach, describe, expect, it } from 'vitest';
import { HermesError } from '../../../src/errors/hermes-error.js';
import { feishuSettings } from '../../../src/platforms/feishu/feishu-settings.js';
import { type CallbackVariant, internalError, postCallback, urlVerification } from '../../fakes/fake-lark.js';
import { waitFor } from '../../gateway/e2e/gateway-kit.js';
import { makeTempHome, testConfig } from '../../helpers/test-config.js';
import { recordingSink } from '../telegram/telegram-kit.js';
import { type FeishuSetup, setupFeishu } from './feishu-kit.js';

/** Webhook mode: our own checks of every callback before anything of it is read. */
describe('feishu webhook verification', () => {
  const open: FeishuSetup[] = [];
  afterEach(async () => {
    for (const setup of open.splice(0)) await setup.close();
  });

  async function started(options: Parameters<typeof setupFeishu>[1] = {}) {
    const setup = await setupFeishu('webhook', options);
    open.push(setup);
    const recorder = recordingSink();
    await setup.adapter.start(recorder.sink);
    const ann = setup.fake.user('Ann');
    return { setup, fake: setup.fake, recorder, ann, url: setup.webhookUrl ?? '' };
  }

  it('answers the url_verification challenge, encrypted or not signed', async () => {
    const { fake, url } = await started();
    const challenge = urlVerification(fake.app, 'challenge-123');
    const encrypted = await postCallback(url, fake.webhookRequest(challenge));
    expect(encrypted.status).toBe(200);
    expect(encrypted.json).toEqual({ challenge: 'challenge-123' });
    const unsigned = await postCallback(
      url,
      fake.webhookRequest(challenge, { variant: 'missing-signature' }),
    );
    expect(unsigned.json).toEqual({ challenge: 'challenge-123' });
    // A challenge with the wrong token is refused.
    const forged = await postCallback(url, fake.webhookRequest(challenge, { variant: 'wrong-token' }));
    expect(forged.status).toBe(401);
  });

  it('hands an encrypted, signed message to the gateway and acknowledges it', async () => {
    const { setup, fake, recorder, ann } = await started();
    const { event } = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'hello there' });
    const { ack, response } = await setup.deliver(event);
    expect(ack).toBe('acknowledged');
    expect(response?.json).toEqual({});
    expect(recorder.events).toMatchObject([
      { kind: 'message', platform: 'feishu', text: 'hello there', chat: { chatType: 'dm' }, addressed: true },
    ]);
  });

  const refusals: [CallbackVariant, number][] = [
    ['wrong-signature', 401],
    ['missing-signature', 401],
    ['wrong-token', 401],
    ['stale-timestamp', 401],
    ['wrong-key', 401],
    ['garbage-encrypt', 400],
    ['not-base64-encrypt', 400],
    ['unencrypted', 400],
    ['truncated-json', 400],
  ];

  it.each(refusals)(
    'refuses a %s request with %i, hands nothing over and keeps serving',
    async (variant, status) => {
      const { setup, fake, recorder, ann, url } = await started();
      const { event } = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'forged' });
      const response = await postCallback(url, fake.webhookRequest(event, { variant }));
      expect(response.status).toBe(status);
      expect(recorder.events).toEqual([]);
      // Still alive, and the same event delivered properly goes through.
      expect((await setup.deliver(event)).ack).toBe('acknowledged');
      expect(recorder.events).toHaveLength(1);
      expect(setup.logs.lines.join('\n')).not.toContain(fake.encryptKey ?? 'never');
    },
  );

  it('without an encrypt key checks the verification token, and refuses encrypted bodies', async () => {
    const { setup, fake, recorder, ann, url } = await started({ fake: {} });
    expect(fake.encryptKey).toBeUndefined();
    const { event } = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'plain' });
    const wrong = await postCallback(url, fake.webhookRequest(event, { variant: 'wrong-token' }));
    expect(wrong.status).toBe(401);
    const encrypted = await postCallback(url, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ encrypt: 'AAAA' }),
    });
    expect(encrypted.status).toBe(400);
    expect(recorder.events).toEqual([]);
    expect((await setup.deliver(event)).ack).toBe('acknowledged');
    expect(recorder.events).toHaveLength(1);
  });

  it('refuses to start in webhook mode with neither an encrypt key nor a verification token', () => {
    const temp = makeTempHome('hermes-feishu-cfg-');
    try {
      const config = testConfig(temp.home, {
        FEISHU_APP_ID: 'cli_0123456789abcdef',
        FEISHU_APP_SECRET: 'secret',
        FEISHU_CONNECTION_MODE: 'webhook',
      });
      expect(() => feishuSettings(config)).toThrow(HermesError);
      expect(() => feishuSettings(config)).toThrow(/FEISHU_ENCRYPT_KEY/);
      const half = testConfig(temp.home, { FEISHU_APP_ID: 'cli_0123456789abcdef' });
      expect(() => feishuSettings(half)).toThrow(/FEISHU_APP_SECRET/);
      expect(feishuSettings(testConfig(temp.home, {}))).toBeUndefined();
    } finally {
      temp.cleanup();
    }
  });

  it('answers 503 before it is started (Lark comes back), and 500 when the gateway did not take an event', async () => {
    const setup = await setupFeishu('webhook');
    open.push(setup);
    const ann = setup.fake.user('Ann');
    const { event } = setup.fake.userSends({ from: ann, chat: setup.fake.dm(ann), text: 'early' });
    expect((await setup.deliver(event)).response?.status).toBe(503);
    const recorder = recordingSink();
    let calls = 0;
    recorder.answerWith(async () => {
      calls += 1;
      if (calls === 1) throw new Error('store down');
      return { status: 'accepted' };
    });
    await setup.adapter.start(recorder.sink);
    expect((await setup.deliver(event)).response?.status).toBe(500);
    expect((await setup.deliver(event)).ack).toBe('acknowledged');
    const [first, second] = recorder.events;
    expect(recorder.events).toHaveLength(2);
    expect(second?.eventId).toBe(first?.eventId);
  });

  it('keeps retrying to learn who the bot is: health says why, and events wait (503) until it knows', async () => {
    const setup = await setupFeishu('webhook');
    open.push(setup);
    setup.fake.failNext('bot.info', internalError(2));
    const recorder = recordingSink();
    await setup.adapter.start(recorder.sink);
    const health = await setup.adapter.health();
    expect(health.ok).toBe(false);
    expect(health.reason).toMatch(/feishu set-up failed: .*HTTP 500/);
    await waitFor(async () => (await setup.adapter.health()).ok);
    const ann = setup.fake.user('Ann');
    const { event } = setup.fake.userSends({ from: ann, chat: setup.fake.dm(ann), text: 'now' });
    expect((await setup.deliver(event)).ack).toBe('acknowledged');
    expect(recorder.events).toHaveLength(1);
    expect(setup.fake.callsOf('bot.info').length).toBeGreaterThanOrEqual(3);
  });
});
