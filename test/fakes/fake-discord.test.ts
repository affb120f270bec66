import { ChannelType, DiscordAPIError, Events, GatewayIntentBits, Partials } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ADAPTER_INTENTS,
  buttonRow,
  type DiscordKit,
  next,
  startDiscordKit,
  textChannel,
} from './fake-discord/discord-test-kit.js';

const intentBits = (intents: readonly number[]) => intents.reduce((all, bit) => all | bit, 0);

describe('fake Discord with real discord.js: login and messages', () => {
  let kit: DiscordKit | undefined;
  afterEach(async () => {
    const problems = kit?.problems() ?? [];
    await kit?.close();
    kit = undefined;
    expect(problems).toEqual([]);
  });

  it('logs in to READY with the guild, its channels, thread and roles cached, and records IDENTIFY', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const guild = client.guilds.cache.get(fake.seed.guildId);
    expect(guild?.name).toBe('Hermes Test Guild');
    expect(client.channels.cache.get(fake.seed.channels.general)?.type).toBe(ChannelType.GuildText);
    expect(client.channels.cache.get(fake.seed.channels.thread)?.type).toBe(ChannelType.PublicThread);
    expect(guild?.roles.cache.get(fake.seed.roles.admin)?.name).toBe('Admin');
    expect(client.user?.id).toBe(fake.bot.id);
    expect(client.application?.id).toBe(fake.applicationId);
    expect(fake.gateway.identifies).toHaveLength(1);
    expect(fake.gateway.identifies[0]?.intents).toBe(intentBits(ADAPTER_INTENTS));
    expect(fake.gateway.identifies[0]?.shard).toEqual([0, 1]);
    const discovery = fake.callsTo('GET /gateway/bot');
    expect(discovery).toHaveLength(1);
    expect(discovery[0]?.authorized).toBe(true);
    expect(fake.gateway.connections[0]?.path).toBe('/gateway');
    expect(fake.gateway.connections[0]?.query).toEqual({ v: '10', encoding: 'json' });
  });

  it('delivers a DM (with Partials.Channel) and guild messages with mentions, replies, attachments and roles', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const { alice, otherBot } = fake.seed.users;

    const dm = next(client, Events.MessageCreate);
    fake.dm({ authorId: alice.id, content: 'hello in private' });
    const [dmMessage] = await dm;
    expect(dmMessage.channel.type).toBe(ChannelType.DM);
    expect(dmMessage.content).toBe('hello in private');
    expect(dmMessage.guildId).toBeNull();

    const first = fake.say(fake.seed.channels.general, { authorId: alice.id, content: 'earlier' });
    const guildMessage = next(client, Events.MessageCreate, (m) => m.attachments.size > 0);
    fake.say(fake.seed.channels.general, {
      authorId: alice.id,
      content: `<@${fake.bot.id}> look at this`,
      replyTo: first.id,
      attachments: [{ filename: 'notes.txt', bytes: Buffer.from('file body'), contentType: 'text/plain' }],
    });
    const [message] = await guildMessage;
    expect(message.mentions.users.has(fake.bot.id)).toBe(true);
    expect(message.reference?.messageId).toBe(first.id);
    expect(message.member?.roles.cache.has(fake.seed.roles.member)).toBe(true);
    const attachment = message.attachments.first();
    expect(attachment?.name).toBe('notes.txt');
    expect(await (await fetch(attachment?.url ?? '')).text()).toBe('file body');

    const fromBot = next(client, Events.MessageCreate, (m) => m.author.id === otherBot.id);
    fake.say(fake.seed.channels.general, { authorId: otherBot.id, content: 'beep' });
    expect((await fromBot)[0].author.bot).toBe(true);

    const inThread = next(client, Events.MessageCreate, (m) => m.channelId === fake.seed.channels.thread);
    fake.say(fake.seed.channels.thread, { authorId: alice.id, content: 'in the thread' });
    expect((await inThread)[0].channel.isThread()).toBe(true);

    const threadCreated = next(client, Events.ThreadCreate);
    const started = fake.startThread(fake.seed.channels.general, {
      authorId: alice.id,
      name: 'Side topic',
      fromMessageId: first.id,
    });
    const [thread, newlyCreated] = await threadCreated;
    expect([thread.id, thread.name, thread.parentId, newlyCreated]).toEqual([
      first.id,
      'Side topic',
      fake.seed.channels.general,
      true,
    ]);
    expect(started.id).toBe(first.id);
  });

  it('blanks guild message content without the Message Content intent unless the bot is mentioned', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages] });
    const { alice } = fake.seed.users;
    const plain = next(client, Events.MessageCreate);
    fake.say(fake.seed.channels.general, { authorId: alice.id, content: 'secret words' });
    expect((await plain)[0].content).toBe('');
    const mention = next(client, Events.MessageCreate);
    fake.say(fake.seed.channels.general, { authorId: alice.id, content: `<@${fake.bot.id}> visible` });
    expect((await mention)[0].content).toBe(`<@${fake.bot.id}> visible`);
  });

  it('keeps what the bot sends: replies, buttons, edits, and its own MESSAGE_CREATE echo', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const incoming = next(client, Events.MessageCreate);
    fake.say(fake.seed.channels.general, { authorId: fake.seed.users.alice.id, content: 'ask' });
    const [asked] = await incoming;
    const echo = next(client, Events.MessageCreate, (m) => m.author.id === fake.bot.id);
    const reply = await asked.reply({ content: 'Run `ls`?', components: buttonRow('allow:r1', 'deny:r1') });
    expect((await echo)[0].id).toBe(reply.id);
    const [, sent] = fake.messages(fake.seed.channels.general);
    expect(sent?.replyTo?.messageId).toBe(asked.id);
    expect(sent?.mentions).toEqual([fake.seed.users.alice.id]);
    expect(fake.buttons(reply.id).map((b) => b.customId)).toEqual(['allow:r1', 'deny:r1']);
    const call = fake.callsTo('POST /channels/:channel_id/messages')[0];
    expect(call?.body).toMatchObject({ message_reference: { message_id: asked.id } });

    await reply.edit({ content: 'Approved', components: [] });
    expect(fake.message(reply.id)).toMatchObject({ content: 'Approved', components: [], edits: 1 });

    const withFile = await asked.channel.send({
      content: 'full output',
      files: [{ attachment: Buffer.from('x'.repeat(3000)), name: 'output.txt' }],
    });
    const [file] = fake.message(withFile.id)?.attachments ?? [];
    expect([file?.filename, file?.size]).toEqual(['output.txt', 3000]);
    expect(withFile.attachments.first()?.name).toBe('output.txt');
  });

  it('refuses what Discord refuses: 2001 characters, six buttons in a row, a duplicate or 101-char custom_id, an 81-char label', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const channel = textChannel(client, fake.seed.channels.general);
    const refused = async (send: () => Promise<unknown>) => {
      const error = await send().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DiscordAPIError);
      return error instanceof DiscordAPIError ? error : undefined;
    };
    const long = await refused(() => channel.send('x'.repeat(2001)));
    expect(long?.code).toBe(50035);
    expect(long?.rawError).toMatchObject({
      errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } },
    });
    expect(
      (
        await refused(() =>
          channel.send({ content: 'six', components: buttonRow('1', '2', '3', '4', '5', '6') }),
        )
      )?.code,
    ).toBe(50035);
    expect(
      (await refused(() => channel.send({ content: 'dup', components: buttonRow('same', 'same') })))?.code,
    ).toBe(50035);
    expect(
      (await refused(() => channel.send({ content: 'id', components: buttonRow('i'.repeat(101)) })))?.code,
    ).toBe(50035);
    const row = { type: 1, components: [{ type: 2, style: 1, custom_id: 'ok', label: 'l'.repeat(81) }] };
    expect((await refused(() => channel.send({ content: 'label', components: [row] })))?.code).toBe(50035);
    expect((await refused(() => channel.send({ content: '' })))?.code).toBe(50006);
    expect(fake.messages(fake.seed.channels.general)).toEqual([]);
    await channel.send('x'.repeat(2000));
    expect(fake.messages(fake.seed.channels.general)).toHaveLength(1);
  });

  it('blanks content in GET messages when the app lacks the Message Content intent in the portal', async () => {
    kit = await startDiscordKit({ privilegedIntents: 0 });
    const { fake } = kit;
    const client = await kit.ready({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages] });
    const channel = textChannel(client, fake.seed.channels.general);
    fake.say(channel.id, { authorId: fake.seed.users.alice.id, content: 'hidden' });
    fake.say(channel.id, { authorId: fake.seed.users.alice.id, content: `<@${fake.bot.id}> shown` });
    await channel.send('mine');
    const fetched = await channel.messages.fetch({ limit: 10 });
    expect([...fetched.values()].map((m) => m.content)).toEqual(['mine', `<@${fake.bot.id}> shown`, '']);
  });

  it('keeps Partials.Channel DMs working both ways and refuses DMs to a user who blocks them (50007)', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready({ partials: [Partials.Channel] });
    const alice = await client.users.fetch(fake.seed.users.alice.id);
    await alice.send('hello Alice');
    expect(fake.messages(fake.dmChannel(alice.id).id).map((m) => m.content)).toEqual(['hello Alice']);
    fake.blockDms(fake.seed.users.bob.id);
    const bob = await client.users.fetch(fake.seed.users.bob.id);
    expect(await bob.send('hi').catch((e: unknown) => (e instanceof DiscordAPIError ? e.code : e))).toBe(
      50007,
    );
  });
});
