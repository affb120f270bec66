import type { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ClearableCache, larkFailure, sdkClient, streamedLarkFailure } from './fake-lark/lark-sdk-kit.js';
import { type FakeLark, rateLimited, startFakeLark } from './fake-lark.js';

/** The fake Lark Open API, driven by the real @larksuiteoapi/node-sdk client. */

const card = (title: string, buttons: string[], updateMulti = true) => ({
  config: { wide_screen_mode: true, update_multi: updateMulti },
  header: { title: { tag: 'plain_text', content: title }, template: 'orange' },
  elements: [
    { tag: 'div', text: { tag: 'lark_md', content: '```\nrm -rf /tmp/x\n```' } },
    {
      tag: 'action',
      actions: buttons.map((text, index) => ({
        tag: 'button',
        text: { tag: 'plain_text', content: text },
        type: 'primary',
        value: { hermes_action: text.toLowerCase(), approval_id: index + 1 },
      })),
    },
  ],
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('fake Lark Open API', () => {
  let fake: FakeLark | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  async function setup() {
    fake = await startFakeLark();
    const ann = fake.user('Ann');
    const team = fake.group('team', [ann]);
    return { fake, ann, team, client: sdkClient(fake) };
  }

  it('issues a tenant token once and sends text; a resend with the same uuid returns the same message', async () => {
    const { fake, team, client } = await setup();
    const send = () =>
      client.im.v1.message.create({
        params: { receive_id_type: 'chat_id' },
        data: {
          receive_id: team.chatId,
          msg_type: 'text',
          content: JSON.stringify({ text: 'hello' }),
          uuid: 'u-1',
        },
      });
    const first = await send();
    const second = await send();
    expect(first.code).toBe(0);
    expect(first.data?.message_id).toMatch(/^om_[0-9a-f]{32}$/);
    expect(second.data?.message_id).toBe(first.data?.message_id);
    expect(first.data?.sender).toMatchObject({ id: fake.appId, id_type: 'app_id', sender_type: 'app' });
    expect(fake.botMessages(team.chatId).map((m) => m.text)).toEqual(['hello']);
    expect(fake.callsOf('auth.tenant_access_token')).toHaveLength(1);
    const token = fake.callsOf('im.message.create')[0]?.headers.authorization;
    expect(token).toMatch(/^Bearer t-/);
    const another = await client.im.v1.message.create({
      params: { receive_id_type: 'chat_id' },
      data: {
        receive_id: team.chatId,
        msg_type: 'text',
        content: JSON.stringify({ text: 'hello' }),
        uuid: 'u-2',
      },
    });
    expect(another.data?.message_id).not.toBe(first.data?.message_id);
    fake.advanceClock(3_600_000);
    const afterAnHour = await send();
    expect(afterAnHour.data?.message_id).not.toBe(first.data?.message_id);
    expect(fake.botMessages(team.chatId)).toHaveLength(3);
  });

  it('stores a message whose answer was lost; the retry with the same uuid does not double it', async () => {
    const { fake, team, client } = await setup();
    fake.failNext('im.message.create', { drop: 'after' });
    const data = {
      receive_id: team.chatId,
      msg_type: 'text',
      content: JSON.stringify({ text: 'once' }),
      uuid: 'lost-1',
    };
    const error = await rejection(
      client.im.v1.message.create({ params: { receive_id_type: 'chat_id' }, data }),
    );
    expect(String(error)).toMatch(/socket hang up|ECONNRESET/);
    expect(fake.botMessages(team.chatId)).toHaveLength(1);
    const retry = await client.im.v1.message.create({ params: { receive_id_type: 'chat_id' }, data });
    expect(retry.data?.message_id).toBe(fake.botMessages(team.chatId)[0]?.messageId);
    expect(fake.botMessages(team.chatId)).toHaveLength(1);
    fake.failNext('im.message.create', { drop: 'before', delayMs: 20 });
    await rejection(
      client.im.v1.message.create({
        params: { receive_id_type: 'chat_id' },
        data: { ...data, uuid: 'lost-2' },
      }),
    );
    expect(fake.botMessages(team.chatId)).toHaveLength(1);
  });

  it('sends to a user by open_id into their direct chat, and refuses unknown, unavailable and left targets', async () => {
    const { fake, ann, team, client } = await setup();
    const text = JSON.stringify({ text: 'hi Ann' });
    const dm = await client.im.v1.message.create({
      params: { receive_id_type: 'open_id' },
      data: { receive_id: ann.openId, msg_type: 'text', content: text },
    });
    expect(dm.data?.chat_id).toBe(fake.dm(ann).chatId);
    const byEmail = await client.im.v1.message.create({
      params: { receive_id_type: 'email' },
      data: { receive_id: ann.email, msg_type: 'text', content: text },
    });
    expect(byEmail.data?.chat_id).toBe(fake.dm(ann).chatId);
    const codeOf = async (receiveIdType: 'chat_id' | 'open_id', receiveId: string) =>
      larkFailure(
        await rejection(
          client.im.v1.message.create({
            params: { receive_id_type: receiveIdType },
            data: { receive_id: receiveId, msg_type: 'text', content: text },
          }),
        ),
      );
    expect(await codeOf('chat_id', 'oc_00000000000000000000000000000000')).toMatchObject({
      status: 400,
      code: 230001,
    });
    fake.makeUnavailable(ann);
    expect(await codeOf('open_id', ann.openId)).toMatchObject({ status: 400, code: 230013 });
    fake.removeBot(team);
    expect(await codeOf('chat_id', team.chatId)).toMatchObject({ status: 400, code: 230002 });
  });

  it('replies (also idempotently) and threads under the message replied to', async () => {
    const { fake, ann, team, client } = await setup();
    const { message } = fake.userSends({ from: ann, chat: team, text: 'question' });
    const reply = () =>
      client.im.v1.message.reply({
        path: { message_id: message.messageId },
        data: {
          msg_type: 'text',
          content: JSON.stringify({ text: 'answer' }),
          uuid: 'r-1',
          reply_in_thread: true,
        },
      });
    const first = await reply();
    const again = await reply();
    expect(again.data?.message_id).toBe(first.data?.message_id);
    expect(first.data).toMatchObject({
      parent_id: message.messageId,
      root_id: message.messageId,
      chat_id: team.chatId,
    });
    expect(first.data?.thread_id).toMatch(/^omt_/);
    expect(fake.messages(team.chatId).map((m) => [m.sentBy === 'bot' ? 'bot' : 'ann', m.text])).toEqual([
      ['ann', 'question'],
      ['bot', 'answer'],
    ]);
  });

  it('patches a shared card so the chat shows the new one, and refuses what Lark refuses', async () => {
    const { fake, team, client } = await setup();
    const sent = await client.im.v1.message.create({
      params: { receive_id_type: 'chat_id' },
      data: {
        receive_id: team.chatId,
        msg_type: 'interactive',
        content: JSON.stringify(card('Approve?', ['Allow', 'Deny'])),
      },
    });
    const messageId = sent.data?.message_id ?? '';
    expect(fake.message(messageId)?.buttons.map((b) => b.text)).toEqual(['Allow', 'Deny']);
    expect(fake.message(messageId)?.text).toContain('Approve?');
    const patched = await client.im.v1.message.patch({
      path: { message_id: messageId },
      data: { content: JSON.stringify(card('Denied by Ann', [])) },
    });
    expect(patched.code).toBe(0);
    const shown = fake.message(messageId);
    expect(shown?.text).toContain('Denied by Ann');
    expect(shown?.buttons).toEqual([]);
    expect(shown?.versions.map((v) => v.by)).toEqual(['create', 'patch']);

    const notShared = await client.im.v1.message.create({
      params: { receive_id_type: 'chat_id' },
      data: {
        receive_id: team.chatId,
        msg_type: 'interactive',
        content: JSON.stringify(card('x', ['A'], false)),
      },
    });
    const patchError = await rejection(
      client.im.v1.message.patch({
        path: { message_id: notShared.data?.message_id ?? '' },
        data: { content: JSON.stringify(card('y', [])) },
      }),
    );
    expect(larkFailure(patchError)).toMatchObject({ status: 400, code: 230001 });
    const text = await client.im.v1.message.create({
      params: { receive_id_type: 'chat_id' },
      data: { receive_id: team.chatId, msg_type: 'text', content: JSON.stringify({ text: 'plain' }) },
    });
    const notCard = await rejection(
      client.im.v1.message.patch({
        path: { message_id: text.data?.message_id ?? '' },
        data: { content: JSON.stringify(card('y', [])) },
      }),
    );
    expect(larkFailure(notCard)).toMatchObject({ code: 230001 });
    fake.advanceClock(15 * 24 * 3_600_000);
    // Two weeks on, the SDK's cached token has expired too: a client with a fresh cache gets a new one.
    const later = sdkClient(fake, { cache: new ClearableCache() });
    const tooOld = await rejection(
      later.im.v1.message.patch({
        path: { message_id: messageId },
        data: { content: JSON.stringify(card('z', [])) },
      }),
    );
    expect(larkFailure(tooOld)).toMatchObject({ code: 230031 });
  });

  it('edits text with PUT but not cards, and reads a message back', async () => {
    const { fake, team, client } = await setup();
    const text = await client.im.v1.message.create({
      params: { receive_id_type: 'chat_id' },
      data: { receive_id: team.chatId, msg_type: 'text', content: JSON.stringify({ text: 'draft' }) },
    });
    const id = text.data?.message_id ?? '';
    const edited = await client.im.v1.message.update({
      path: { message_id: id },
      data: { msg_type: 'text', content: JSON.stringify({ text: 'final' }) },
    });
    expect(edited.data?.updated).toBe(true);
    expect(fake.message(id)?.text).toBe('final');
    const got = await client.im.v1.message.get({ path: { message_id: id } });
    expect(got.data?.items?.[0]?.body?.content).toBe(JSON.stringify({ text: 'final' }));
    const cardMessage = await client.im.v1.message.create({
      params: { receive_id_type: 'chat_id' },
      data: { receive_id: team.chatId, msg_type: 'interactive', content: JSON.stringify(card('c', ['A'])) },
    });
    const error = await rejection(
      client.im.v1.message.update({
        path: { message_id: cardMessage.data?.message_id ?? '' },
        data: { msg_type: 'interactive', content: JSON.stringify(card('d', [])) },
      }),
    );
    expect(larkFailure(error)).toMatchObject({ status: 400, code: 230001 });
  });

  it('enforces the 150 KB text and 30 KB card request limits', async () => {
    const { team, client } = await setup();
    const sendText = (text: string) =>
      client.im.v1.message.create({
        params: { receive_id_type: 'chat_id' },
        data: { receive_id: team.chatId, msg_type: 'text', content: JSON.stringify({ text }) },
      });
    expect((await sendText('a'.repeat(140 * 1024))).code).toBe(0);
    expect(larkFailure(await rejection(sendText('a'.repeat(151 * 1024))))).toMatchObject({
      status: 400,
      code: 230025,
    });
    const bigCard = card('big', ['A']);
    bigCard.elements.push({ tag: 'div', text: { tag: 'lark_md', content: 'b'.repeat(31 * 1024) } });
    const cardError = await rejection(
      client.im.v1.message.create({
        params: { receive_id_type: 'chat_id' },
        data: { receive_id: team.chatId, msg_type: 'interactive', content: JSON.stringify(bigCard) },
      }),
    );
    expect(larkFailure(cardError)).toMatchObject({ code: 230025 });
    const badCard = await rejection(
      client.im.v1.message.create({
        params: { receive_id_type: 'chat_id' },
        data: { receive_id: team.chatId, msg_type: 'interactive', content: '{"config":{}}' },
      }),
    );
    expect(larkFailure(badCard)).toMatchObject({ code: 230099 });
  });

  it('downloads a message resource with its type and length, and refuses keys the message lacks', async () => {
    const { fake, ann, team, client } = await setup();
    const bytes = Buffer.from('\x89PNG fake image bytes');
    const { message } = fake.userSends({ from: ann, chat: team, image: { bytes, contentType: 'image/png' } });
    const imageKey = message.resourceKeys[0] ?? '';
    const resource = await client.im.v1.messageResource.get({
      path: { message_id: message.messageId, file_key: imageKey },
      params: { type: 'image' },
    });
    const chunks: Buffer[] = [];
    for await (const chunk of resource.getReadableStream()) chunks.push(Buffer.from(chunk));
    expect(Buffer.concat(chunks)).toEqual(bytes);
    expect(resource.headers).toMatchObject({
      'content-type': 'image/png',
      'content-length': String(bytes.length),
    });

    const other = fake.addResource('image', { bytes: Buffer.from('other') });
    const notInMessage = await rejection(
      client.im.v1.messageResource.get({
        path: { message_id: message.messageId, file_key: other.fileKey },
        params: { type: 'image' },
      }),
    );
    expect(larkFailure(notInMessage).code).toBeUndefined();
    expect(await streamedLarkFailure(notInMessage)).toEqual({ status: 400, code: 234003 });
    const { message: huge } = fake.userSends({
      from: ann,
      chat: team,
      file: { size: 101 * 1_048_576, fileName: 'huge.bin' },
    });
    const tooBig = await rejection(
      client.im.v1.messageResource.get({
        path: { message_id: huge.messageId, file_key: huge.resourceKeys[0] ?? '' },
        params: { type: 'file' },
      }),
    );
    expect(await streamedLarkFailure(tooBig)).toEqual({ status: 400, code: 234037 });
  });

  it('streams a large resource without a length, and a reader may stop at its own cap', async () => {
    const { fake, ann, team } = await setup();
    const { message } = fake.userSends({
      from: ann,
      chat: team,
      file: { size: 50 * 1_048_576, fileName: 'big.bin', omitContentLength: true },
    });
    const client = sdkClient(fake);
    const resource = await client.im.v1.messageResource.get({
      path: { message_id: message.messageId, file_key: message.resourceKeys[0] ?? '' },
      params: { type: 'file' },
    });
    expect(resource.headers['content-length']).toBeUndefined();
    const stream: Readable = resource.getReadableStream();
    let received = 0;
    for await (const chunk of stream) {
      received += Buffer.from(chunk).length;
      if (received > 1_048_576) break;
    }
    expect(received).toBeGreaterThan(1_048_576);
    const info = await client.request<{ code: number; bot: { open_id: string } }>({
      url: '/open-apis/bot/v3/info',
      method: 'GET',
    });
    expect(info.bot.open_id).toBe(fake.bot.openId);
  });

  it('answers a planned 429 the way Lark does; the SDK throws without retrying', async () => {
    const { fake, team, client } = await setup();
    fake.failNext('im.message.create', rateLimited(2));
    const send = () =>
      client.im.v1.message.create({
        params: { receive_id_type: 'chat_id' },
        data: { receive_id: team.chatId, msg_type: 'text', content: JSON.stringify({ text: 'x' }) },
      });
    const failure = larkFailure(await rejection(send()));
    expect(failure).toMatchObject({ status: 429, code: 99991400 });
    expect(failure.headers).toMatchObject({ 'x-ogw-ratelimit-reset': '2' });
    expect(fake.callsOf('im.message.create')).toHaveLength(1);
    expect((await send()).code).toBe(0);
    fake.failNext('im.message.create', rateLimited(1, 1, 400));
    expect(larkFailure(await rejection(send()))).toMatchObject({ status: 400, code: 99991400 });
    fake.failNext('im.message.create', {
      status: 200,
      code: 230020,
      msg: 'This operation triggers the frequency limit.',
    });
    // With HTTP 200 the SDK resolves: the caller has to look at `code` itself.
    expect(await send()).toMatchObject({ code: 230020 });
    fake.failNext('im.message.create', { status: 502, rawBody: '<html>Bad Gateway</html>' });
    expect(larkFailure(await rejection(send())).status).toBe(502);
  });

  it('revoked tokens fail with 99991663; the SDK keeps its cached token until the cache is cleared', async () => {
    const { fake, team } = await setup();
    const cache = new ClearableCache();
    const client = sdkClient(fake, { cache });
    const send = () =>
      client.im.v1.message.create({
        params: { receive_id_type: 'chat_id' },
        data: { receive_id: team.chatId, msg_type: 'text', content: JSON.stringify({ text: 'x' }) },
      });
    await send();
    fake.revokeTokens();
    expect(larkFailure(await rejection(send()))).toMatchObject({ status: 400, code: 99991663 });
    expect(larkFailure(await rejection(send()))).toMatchObject({ code: 99991663 });
    expect(fake.callsOf('auth.tenant_access_token')).toHaveLength(1);
    cache.clear();
    expect((await send()).code).toBe(0);
    expect(fake.callsOf('auth.tenant_access_token')).toHaveLength(2);
    const missing = await fetch(`${fake.domain}/open-apis/bot/v3/info`);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ code: 99991661 });
    const wrongSecret = await fetch(`${fake.domain}/open-apis/auth/v3/tenant_access_token/internal`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ app_id: fake.appId, app_secret: 'nope' }),
    });
    expect(await wrongSecret.json()).toMatchObject({ code: 10014 });
  });

  it('returns the same token while it has 30 minutes left, and a new one after', async () => {
    const { fake } = await setup();
    const ask = async () => {
      const response = await fetch(`${fake.domain}/open-apis/auth/v3/tenant_access_token/internal`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ app_id: fake.appId, app_secret: fake.appSecret }),
      });
      return (await response.json()) as { tenant_access_token: string; expire: number };
    };
    const first = await ask();
    expect(first.expire).toBe(7200);
    fake.advanceClock(3_600_000);
    const same = await ask();
    expect(same.tenant_access_token).toBe(first.tenant_access_token);
    expect(same.expire).toBeLessThanOrEqual(3600);
    fake.advanceClock(1_900_000);
    const fresh = await ask();
    expect(fresh.tenant_access_token).not.toBe(first.tenant_access_token);
  });

  it('uploads an image the bot then sends, and reads documents and wiki nodes', async () => {
    const { fake, team, client } = await setup();
    const uploaded = await client.im.v1.image.create({
      data: { image_type: 'message', image: Buffer.from('png bytes') },
    });
    const imageKey = uploaded?.image_key ?? '';
    expect(imageKey).toMatch(/^img_v3_/);
    const sent = await client.im.v1.message.create({
      params: { receive_id_type: 'chat_id' },
      data: { receive_id: team.chatId, msg_type: 'image', content: JSON.stringify({ image_key: imageKey }) },
    });
    expect(fake.message(sent.data?.message_id ?? '')?.resourceKeys).toEqual([imageKey]);

    const document = fake.addDocument({ title: 'Runbook', content: 'Step 1\nStep 2\n' });
    const raw = await client.docx.v1.document.rawContent({ path: { document_id: document.documentId } });
    expect(raw.data?.content).toBe('Step 1\nStep 2\n');
    const node = fake.addWikiNode({ document });
    const wiki = await client.wiki.v2.space.getNode({ params: { token: node.nodeToken } });
    expect(wiki.data?.node).toMatchObject({
      obj_token: document.documentId,
      obj_type: 'docx',
      title: 'Runbook',
    });
    const secret = fake.addDocument({ title: 'Secret', content: 'x', forbidden: true });
    const denied = await rejection(
      client.docx.v1.document.rawContent({ path: { document_id: secret.documentId } }),
    );
    expect(larkFailure(denied)).toMatchObject({ status: 403, code: 1770032 });
  });

  it('adds and removes a reaction', async () => {
    const { fake, ann, team, client } = await setup();
    const { message } = fake.userSends({ from: ann, chat: team, text: 'hi' });
    const added = await client.im.v1.messageReaction.create({
      path: { message_id: message.messageId },
      data: { reaction_type: { emoji_type: 'Typing' } },
    });
    expect([...message.reactions.values()]).toEqual(['Typing']);
    await client.im.v1.messageReaction.delete({
      path: { message_id: message.messageId, reaction_id: added.data?.reaction_id ?? '' },
    });
    expect(message.reactions.size).toBe(0);
  });
});
