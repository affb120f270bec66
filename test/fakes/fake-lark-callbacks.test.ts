import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as lark from '@larksuiteoapi/node-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { keptLogger, sdkClient } from './fake-lark/lark-sdk-kit.js';
import {
  type CallbackRequest,
  decryptPayload,
  encryptPayload,
  type FakeLark,
  larkSignature,
  postCallback,
  startFakeLark,
  urlVerification,
} from './fake-lark.js';

/**
 * The callbacks the fake builds, checked against the SDK's own EventDispatcher and AESCipher —
 * and the SDK's verification gaps an adapter has to close itself.
 */

const ENCRYPT_KEY = 'encrypt-key-for-tests';

/** What the SDK's adapters hand `invoke`: the body's fields, the headers on the prototype. */
function asSdkData(request: CallbackRequest): Record<string, unknown> {
  return Object.assign(Object.create({ headers: request.headers }), JSON.parse(request.body));
}

interface Received {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

function dispatcherFor(fake: FakeLark, answer: (data: Record<string, unknown>) => unknown = () => undefined) {
  const received: Received[] = [];
  const dispatcher = new lark.EventDispatcher({
    ...(fake.encryptKey !== undefined ? { encryptKey: fake.encryptKey } : {}),
    verificationToken: fake.verificationToken,
    logger: keptLogger().logger,
  }).register<{ 'card.action.trigger': (data: Record<string, unknown>) => unknown }>({
    'im.message.receive_v1': async (data) => {
      received.push({ type: 'im.message.receive_v1', data: { ...data } });
    },
    'card.action.trigger': async (data) => {
      received.push({ type: 'card.action.trigger', data: { ...data } });
      return answer(data);
    },
  });
  return { dispatcher, received };
}

const messageOf = (received: Received | undefined): Record<string, unknown> =>
  (received?.data['message'] ?? {}) as Record<string, unknown>;

describe('fake Lark callbacks', () => {
  let fake: FakeLark | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
    if (server?.listening) await new Promise<void>((resolve) => server?.close(() => resolve()));
    server = undefined;
  });

  /** The SDK's own webhook adapter on a plain http server; a rejected handler is caught and kept. */
  async function sdkWebhook(dispatcher: lark.EventDispatcher, autoChallenge: boolean) {
    const handler = lark.adaptDefault('/webhook', dispatcher, { autoChallenge });
    const thrown: unknown[] = [];
    server = createServer((req, res) => {
      handler(req, res).catch((error: unknown) => {
        thrown.push(error);
        res.statusCode = 500;
        res.end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`, thrown };
  }

  it('encrypts the way the SDK decrypts, and signs timestamp + nonce + key + body', async () => {
    const plaintext = JSON.stringify({ text: 'héllo ✓ <&>' });
    const encrypted = encryptPayload(plaintext, ENCRYPT_KEY);
    expect(new lark.AESCipher(ENCRYPT_KEY).decrypt(encrypted)).toBe(plaintext);
    expect(decryptPayload(encrypted, ENCRYPT_KEY)).toBe(plaintext);
    expect(() => decryptPayload(encrypted, 'another key')).toThrow();
    expect(larkSignature('1700000000', 'abc', 'k', '{}')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('builds encrypted, signed message events the SDK accepts: DM text, group @mention, post, image, bot sender', async () => {
    fake = await startFakeLark({ encryptKey: ENCRYPT_KEY });
    const ann = fake.user('Ann');
    const otherBot = fake.user('Deploy bot', { isBot: true });
    const team = fake.group('team', [ann, otherBot]);
    const { dispatcher, received } = dispatcherFor(fake);

    const dm = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'hello' });
    const request = fake.webhookRequest(dm.event);
    expect(Object.keys(JSON.parse(request.body))).toEqual(['encrypt']);
    expect(request.headers).toHaveProperty('x-lark-signature');
    await dispatcher.invoke(asSdkData(request));
    expect(received[0]?.data).toMatchObject({
      event_type: 'im.message.receive_v1',
      event_id: dm.event.header.event_id,
      app_id: fake.appId,
      sender: {
        sender_id: { open_id: ann.openId, user_id: ann.userId, union_id: ann.unionId },
        sender_type: 'user',
      },
    });
    expect(messageOf(received[0])).toMatchObject({
      message_id: dm.message.messageId,
      chat_type: 'p2p',
      message_type: 'text',
      content: '{"text":"hello"}',
    });

    const mention = fake.userSends({ from: ann, chat: team, text: '@_user_1 status?', mentions: ['bot'] });
    await dispatcher.invoke(asSdkData(fake.webhookRequest(mention.event)));
    expect(messageOf(received[1])).toMatchObject({
      chat_type: 'group',
      chat_id: team.chatId,
      mentions: [{ key: '@_user_1', id: { open_id: fake.bot.openId }, name: fake.bot.name }],
    });

    const post = fake.userSends({
      from: ann,
      chat: team,
      post: {
        title: 'Plan',
        content: [[{ tag: 'text', text: 'step one' }], [{ tag: 'a', text: 'doc', href: 'https://x.test' }]],
      },
    });
    await dispatcher.invoke(asSdkData(fake.webhookRequest(post.event)));
    expect(JSON.parse(String(messageOf(received[2])['content']))).toEqual({
      title: 'Plan',
      content: [[{ tag: 'text', text: 'step one' }], [{ tag: 'a', text: 'doc', href: 'https://x.test' }]],
    });
    expect(post.message.text).toBe('Plan\nstep one\ndoc');

    const image = fake.userSends({ from: ann, chat: team, image: { bytes: Buffer.from('img') } });
    await dispatcher.invoke(asSdkData(fake.webhookRequest(image.event)));
    expect(JSON.parse(String(messageOf(received[3])['content']))).toEqual({
      image_key: image.message.resourceKeys[0],
    });

    const fromBot = fake.userSends({ from: otherBot, chat: team, text: 'deployed' });
    await dispatcher.invoke(asSdkData(fake.webhookRequest(fromBot.event)));
    expect(received[4]?.data).toMatchObject({ sender: { sender_type: 'app' } });
    expect(received).toHaveLength(5);
  });

  it('builds plain events carrying the verification token when the app has no encrypt key', async () => {
    fake = await startFakeLark();
    const ann = fake.user('Ann');
    const { dispatcher, received } = dispatcherFor(fake);
    const { event } = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'plain' });
    const request = fake.webhookRequest(event);
    expect(request.headers).not.toHaveProperty('x-lark-signature');
    expect(JSON.parse(request.body)).toMatchObject({
      schema: '2.0',
      header: { token: fake.verificationToken },
    });
    await dispatcher.invoke(asSdkData(request));
    expect(received).toHaveLength(1);
  });

  it('answers url_verification challenges, plain and encrypted, as the SDK reads them', async () => {
    fake = await startFakeLark({ encryptKey: ENCRYPT_KEY });
    const challenge = urlVerification(fake.app, 'challenge-123');
    const encrypted = asSdkData(fake.webhookRequest(challenge));
    expect(lark.generateChallenge(encrypted, { encryptKey: ENCRYPT_KEY })).toEqual({
      isChallenge: true,
      challenge: { challenge: 'challenge-123' },
    });
    const plain = asSdkData(fake.webhookRequest(challenge, { encrypt: false }));
    expect(plain).toMatchObject({ type: 'url_verification', token: fake.verificationToken });
    expect(lark.generateChallenge(plain, { encryptKey: '' }).challenge).toEqual({
      challenge: 'challenge-123',
    });
  });

  it('SDK pitfall: without an encrypt key the verification token is never checked', async () => {
    fake = await startFakeLark();
    const ann = fake.user('Ann');
    const { dispatcher, received } = dispatcherFor(fake);
    const { event } = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'forged' });
    const forged = fake.webhookRequest(event, { variant: 'wrong-token' });
    expect(JSON.parse(forged.body).header.token).not.toBe(fake.verificationToken);
    await dispatcher.invoke(asSdkData(forged));
    expect(received).toHaveLength(1);
  });

  it('SDK pitfall: a bad signature, a missing one or a truncated body get HTTP 200 with an empty body', async () => {
    fake = await startFakeLark({ encryptKey: ENCRYPT_KEY });
    const ann = fake.user('Ann');
    const { dispatcher, received } = dispatcherFor(fake);
    const { url } = await sdkWebhook(dispatcher, true);
    const { event } = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'x' });
    for (const variant of ['wrong-signature', 'missing-signature', 'truncated-json'] as const) {
      const response = await postCallback(url, fake.webhookRequest(event, { variant }));
      expect({ variant, status: response.status, text: response.text }).toEqual({
        variant,
        status: 200,
        text: '',
      });
    }
    expect(received).toHaveLength(0);
    const good = await postCallback(url, fake.webhookRequest(event));
    expect(good.status).toBe(200);
    expect(received).toHaveLength(1);
  });

  it('SDK pitfall: an encrypt it cannot decrypt throws while answering challenges, and is silently dropped otherwise', async () => {
    fake = await startFakeLark({ encryptKey: ENCRYPT_KEY });
    const ann = fake.user('Ann');
    const { dispatcher, received } = dispatcherFor(fake);
    const { event } = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'x' });
    const garbage = fake.webhookRequest(event, { variant: 'garbage-encrypt' });
    expect(() => lark.generateChallenge(asSdkData(garbage), { encryptKey: ENCRYPT_KEY })).toThrow();
    const { url, thrown } = await sdkWebhook(dispatcher, true);
    const crashed = await postCallback(url, garbage);
    expect(crashed.status).toBe(500);
    expect(thrown).toHaveLength(1);
    const notBase64 = await postCallback(url, fake.webhookRequest(event, { variant: 'not-base64-encrypt' }));
    expect(notBase64.status).toBe(500);
    const otherKey = await postCallback(url, fake.webhookRequest(event, { variant: 'wrong-key' }));
    expect(otherKey.status).toBe(500);
    expect(thrown).toHaveLength(3);
    // Without autoChallenge the signature passes, decryption fails quietly, and nothing is handled.
    expect(await dispatcher.invoke(asSdkData(garbage))).toBe('no undefined event handle');
    expect(received).toHaveLength(0);
  });

  it('SDK pitfall: a replayed hour-old request and an unencrypted body are accepted when signed', async () => {
    fake = await startFakeLark({ encryptKey: ENCRYPT_KEY });
    const ann = fake.user('Ann');
    const { dispatcher, received } = dispatcherFor(fake);
    const { event } = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'x' });
    const stale = fake.webhookRequest(event, { variant: 'stale-timestamp' });
    expect(Number(stale.headers['x-lark-request-timestamp'])).toBeLessThan(Date.now() / 1000 - 3000);
    await dispatcher.invoke(asSdkData(stale));
    const unencrypted = fake.webhookRequest(event, { variant: 'unencrypted' });
    expect(JSON.parse(unencrypted.body)).toHaveProperty('schema', '2.0');
    await dispatcher.invoke(asSdkData(unencrypted));
    expect(received).toHaveLength(2);
  });

  it('delivers card clicks; the card in the answer replaces the message, stale formats count as failures', async () => {
    fake = await startFakeLark({ encryptKey: ENCRYPT_KEY });
    const ann = fake.user('Ann');
    const team = fake.group('team', [ann]);
    const resolved = {
      config: { update_multi: true },
      header: { title: { tag: 'plain_text', content: 'Denied by Ann' } },
      elements: [],
    };
    let answer: unknown = {
      toast: { type: 'success', content: 'Denied' },
      card: { type: 'raw', data: resolved },
    };
    const { dispatcher, received } = dispatcherFor(fake, () => answer);
    const { url } = await sdkWebhook(dispatcher, true);
    const sent = await sdkClient(fake).im.v1.message.create({
      params: { receive_id_type: 'chat_id' },
      data: {
        receive_id: team.chatId,
        msg_type: 'interactive',
        content: JSON.stringify({
          schema: '2.0',
          header: { title: { tag: 'plain_text', content: 'Run this?' } },
          body: {
            elements: [
              {
                tag: 'button',
                text: { tag: 'plain_text', content: 'Deny' },
                behaviors: [{ type: 'callback', value: { hermes_action: 'deny', approval_id: 7 } }],
              },
            ],
          },
        }),
      },
    });
    const messageId = sent.data?.message_id ?? '';
    const click = fake.clickEvent({ messageId, operator: ann, label: 'Deny' });
    const response = await fake.deliverWebhook(url, click);
    expect(response.json).toEqual(answer);
    expect(received[0]?.data).toMatchObject({
      operator: { open_id: ann.openId },
      action: { value: { hermes_action: 'deny', approval_id: 7 }, tag: 'button' },
      context: { open_message_id: messageId, open_chat_id: team.chatId },
    });
    expect(fake.message(messageId)?.text).toBe('Denied by Ann');
    expect(fake.message(messageId)?.buttons).toEqual([]);
    expect(fake.clicks[0]).toMatchObject({
      outcome: 'updated',
      toast: { type: 'success', content: 'Denied' },
    });

    answer = resolved;
    const forged = fake.clickEvent({
      messageId,
      operator: ann,
      value: { hermes_action: 'approve_once', approval_id: 7 },
    });
    await fake.deliverWebhook(url, forged);
    expect(fake.clicks[1]).toMatchObject({ outcome: 'failed', value: { hermes_action: 'approve_once' } });
    const bad = await fake.deliverWebhook(url, forged, { variant: 'wrong-signature' });
    expect(bad.status).toBe(200);
    expect(fake.clicks[2]?.outcome).toBe('failed');
  });
});
