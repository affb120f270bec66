import { ChannelType, DiscordAPIError, type Message } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type DiscordKit, startDiscordKit, textChannel } from './fake-discord/discord-test-kit.js';
import { fieldOf } from './fake-discord/is-record.js';

describe('fake Discord REST through discord.js: retries, faults and channel tools', () => {
  let kit: DiscordKit | undefined;
  afterEach(async () => {
    const problems = kit?.problems() ?? [];
    await kit?.close();
    kit = undefined;
    expect(problems).toEqual([]);
  });

  it('lets discord.js retry a 429 (with Discord rate-limit headers) and a 500, and records each attempt', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const channel = textChannel(client, fake.seed.channels.general);
    const route = 'POST /channels/:channel_id/messages';
    fake.failNext(route, { status: 429, retryAfter: 0.2 });
    await channel.send('after a rate limit');
    fake.failNext(route, { status: 500, times: 2 });
    await channel.send('after two 500s');
    fake.failNext(route, { status: 429, retryAfter: 0.1, global: true });
    await channel.send('after a global limit');
    expect(fake.callsTo(route).map((c) => c.status)).toEqual([429, 200, 500, 500, 200, 429, 200]);
    const [first, second] = fake.callsTo(route);
    expect((second?.at ?? 0) - (first?.answeredAt ?? 0)).toBeGreaterThanOrEqual(150);
    expect(fake.messages(fake.seed.channels.general).map((m) => m.content)).toEqual([
      'after a rate limit',
      'after two 500s',
      'after a global limit',
    ]);
  });

  it('a send that times out is retried and posted twice, unless enforceNonce makes Discord return the first', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready({ rest: { timeout: 150 } });
    const channel = textChannel(client, fake.seed.channels.general);
    const route = 'POST /channels/:channel_id/messages';
    const answered = (content: string) => () =>
      fake.callsTo(route).filter((c) => fieldOf(c.body, 'content') === content && c.status !== undefined)
        .length === 2;
    // The slow first attempt is still processed by Discord after discord.js gave up on it.
    fake.delayNext(route, 400);
    await channel.send('slow');
    await fake.waitFor(answered('slow'), 'both attempts answered');
    expect(fake.messages(channel.id).map((m) => m.content)).toEqual(['slow', 'slow']);
    fake.delayNext(route, 400);
    await channel.send({ content: 'once', nonce: 'n-1', enforceNonce: true });
    await fake.waitFor(answered('once'), 'both attempts answered');
    expect(fake.messages(channel.id).map((m) => m.content)).toEqual(['slow', 'slow', 'once']);
  });

  it('handles reactions, threads, pins, typing, history, topic and slowmode, and member timeouts', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const channel = textChannel(client, fake.seed.channels.general);
    const userMessage = fake.say(fake.seed.channels.general, {
      authorId: fake.seed.users.alice.id,
      content: 'one',
    });
    const message: Message = await channel.messages.fetch(userMessage.id);
    await message.react('👀');
    await message.react('✅');
    expect([...(fake.message(message.id)?.reactions.keys() ?? [])]).toEqual(['👀', '✅']);
    await message.reactions.cache.get('👀')?.users.remove(fake.bot.id);
    expect([...(fake.message(message.id)?.reactions.keys() ?? [])]).toEqual(['✅']);
    expect(
      await message.react('thumbsup').catch((e: unknown) => (e instanceof DiscordAPIError ? e.code : e)),
    ).toBe(10014);

    const thread = await message.startThread({ name: 'Follow-up' });
    expect(thread.id).toBe(message.id);
    expect(fake.message(message.id)?.threadId).toBe(thread.id);
    const again = await message
      .startThread({ name: 'Twice' })
      .catch((e: unknown) => (e instanceof DiscordAPIError ? e.code : e));
    expect(again).toBe(160004);
    await thread.send('inside');
    expect(fake.messages(thread.id).map((m) => m.content)).toEqual(['inside']);

    await message.pin();
    expect(fake.message(message.id)?.pinned).toBe(true);
    expect(fake.world.channel(channel.id).pins).toEqual([message.id]);
    await message.unpin();
    expect(fake.message(message.id)?.pinned).toBe(false);

    await channel.sendTyping();
    expect(fake.typing(channel.id)).toHaveLength(1);

    for (const text of ['two', 'three'])
      fake.say(channel.id, { authorId: fake.seed.users.alice.id, content: text });
    const recent = await channel.messages.fetch({ limit: 2 });
    expect([...recent.values()].map((m) => m.content)).toEqual(['three', 'two']);

    await channel.edit({ topic: 'Hermes lives here', rateLimitPerUser: 30, reason: 'asked by an admin' });
    const fetched = await client.channels.fetch(channel.id, { force: true });
    expect(fetched?.type === ChannelType.GuildText ? [fetched.topic, fetched.rateLimitPerUser] : []).toEqual([
      'Hermes lives here',
      30,
    ]);
    expect(fake.world.channel(channel.id)).toMatchObject({
      topic: 'Hermes lives here',
      rateLimitPerUser: 30,
    });
    expect(fake.callsTo('PATCH /channels/:channel_id')[0]?.reason).toBe('asked by an admin');

    const member = await channel.guild.members.fetch(fake.seed.users.bob.id);
    await member.timeout(60_000, 'spam');
    expect(
      fake.world.guild(fake.seed.guildId).members.get(fake.seed.users.bob.id)?.communicationDisabledUntil,
    ).not.toBeNull();
    const owner = await channel.guild.members.fetch(fake.seed.users.owner.id);
    expect(
      await owner.timeout(60_000).catch((e: unknown) => (e instanceof DiscordAPIError ? e.code : e)),
    ).toBe(50013);
    const tooLong = await member
      .timeout(29 * 24 * 3600 * 1000)
      .catch((e: unknown) => (e instanceof DiscordAPIError ? e.code : e));
    expect(tooLong).toBe(50035);
  });

  it('refuses an upload over 10 MiB with 413 / 40005 and keeps a smaller one as an attachment', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const channel = textChannel(client, fake.seed.channels.general);
    const big = Buffer.alloc(10 * 1024 * 1024 + 1);
    const refused = await channel
      .send({ files: [{ attachment: big, name: 'big.bin' }] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DiscordAPIError);
    expect(refused instanceof DiscordAPIError ? [refused.status, refused.code] : []).toEqual([413, 40005]);
    const kept = await channel.send({ files: [{ attachment: Buffer.from('log line'), name: 'run.log' }] });
    const url = kept.attachments.first()?.url ?? '';
    expect(await (await fetch(url)).text()).toBe('log line');
    expect(fake.messages(channel.id).map((m) => m.attachments.map((a) => a.filename))).toEqual([['run.log']]);
  });

  it('answers like Discord to a bad token (401 JSON), an unknown route (404), and a 204 without content-type', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const unauthorized = await fetch(`${fake.apiRoot}/v10/users/@me`, {
      headers: { authorization: 'Bot wrong' },
    });
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toEqual({ message: '401: Unauthorized', code: 0 });
    const missing = await fetch(`${fake.apiRoot}/v10/nothing/here`, {
      headers: { authorization: `Bot ${fake.token}` },
    });
    expect(missing.status).toBe(404);
    const typing = await fetch(`${fake.apiRoot}/v10/channels/${fake.seed.channels.general}/typing`, {
      method: 'POST',
      headers: { authorization: `Bot ${fake.token}` },
    });
    expect(typing.status).toBe(204);
    expect(typing.headers.get('content-type')).toBeNull();
    expect(fake.calls.map((c) => c.status)).toEqual([401, 404, 204]);
  });
});
