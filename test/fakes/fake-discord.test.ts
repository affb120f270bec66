import { setTimeout as sleep } from 'node:timers/promises';
import {
  ChannelType,
  DiscordAPIError,
  Events,
  GatewayIntentBits,
  type Message,
  MessageFlags,
  Partials,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTER_INTENTS, type DiscordKit, next, startDiscordKit } from './fake-discord/discord-test-kit.js';
import { fieldOf } from './fake-discord/is-record.js';

const intentBits = (intents: readonly number[]) => intents.reduce((all, bit) => all | bit, 0);

/** One action row of primary buttons, as raw JSON (discord.js' builders would refuse the bad ones first). */
function buttons(...ids: string[]) {
  return [
    { type: 1, components: ids.map((id) => ({ type: 2, style: 1, custom_id: id, label: id.slice(0, 80) })) },
  ];
}

describe('fake Discord with real discord.js', () => {
  let kit: DiscordKit | undefined;
  afterEach(async () => {
    const errors = [...(kit?.fake.internalErrors ?? []), ...(kit?.clientErrors ?? [])];
    await kit?.close();
    kit = undefined;
    expect(errors).toEqual([]);
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
    const reply = await asked.reply({ content: 'Run `ls`?', components: buttons('allow:r1', 'deny:r1') });
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
    const channel = client.channels.cache.get(fake.seed.channels.general);
    if (channel?.type !== ChannelType.GuildText) throw new Error('no text channel');
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
          channel.send({ content: 'six', components: buttons('1', '2', '3', '4', '5', '6') }),
        )
      )?.code,
    ).toBe(50035);
    expect(
      (await refused(() => channel.send({ content: 'dup', components: buttons('same', 'same') })))?.code,
    ).toBe(50035);
    expect(
      (await refused(() => channel.send({ content: 'id', components: buttons('i'.repeat(101)) })))?.code,
    ).toBe(50035);
    const row = { type: 1, components: [{ type: 2, style: 1, custom_id: 'ok', label: 'l'.repeat(81) }] };
    expect((await refused(() => channel.send({ content: 'label', components: [row] })))?.code).toBe(50035);
    expect((await refused(() => channel.send({ content: '' })))?.code).toBe(50006);
    expect(fake.messages(fake.seed.channels.general)).toEqual([]);
    await channel.send('x'.repeat(2000));
    expect(fake.messages(fake.seed.channels.general)).toHaveLength(1);
  });

  it('records a button click acknowledged by deferUpdate, then the prompt edited, in order', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const channel = client.channels.cache.get(fake.seed.channels.general);
    if (channel?.type !== ChannelType.GuildText) throw new Error('no text channel');
    const prompt = await channel.send({ content: 'Allow?', components: buttons('allow:r1', 'deny:r1') });
    client.on(Events.InteractionCreate, async (interaction) => {
      if (!interaction.isButton()) return;
      await interaction.deferUpdate();
      await interaction.editReply({
        content: `${interaction.customId} by ${interaction.user.username}`,
        components: [],
      });
    });
    const click = fake.click({ messageId: prompt.id, userId: fake.seed.users.owner.id, label: 'allow:r1' });
    expect(click.customId).toBe('allow:r1');
    await fake.waitFor(() => fake.message(prompt.id)?.edits === 1, 'the prompt edited');
    expect(click.callbacks.map((c) => [c.type, c.status])).toEqual([[6, 204]]);
    expect(click.acknowledged?.elapsedMs).toBeLessThan(3000);
    const edit = fake.callsTo('PATCH /webhooks/:application_id/:interaction_token/messages/:message_id')[0];
    expect(click.acknowledged?.seq).toBeLessThan(edit?.seq ?? 0);
    expect(fake.message(prompt.id)).toMatchObject({ content: 'allow:r1 by owner', components: [] });
    expect(() =>
      fake.click({ messageId: prompt.id, userId: fake.seed.users.owner.id, customId: 'allow:r1' }),
    ).toThrow(/no enabled button/);
  });

  it('update() changes the prompt at once; an ephemeral reply is seen only by the clicker; a second callback gets 40060', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const channel = client.channels.cache.get(fake.seed.channels.general);
    if (channel?.type !== ChannelType.GuildText) throw new Error('no text channel');
    const prompt = await channel.send({ content: 'Allow?', components: buttons('allow:r1', 'deny:r1') });
    client.on(Events.InteractionCreate, async (interaction) => {
      if (!interaction.isButton()) return;
      if (interaction.user.id === fake.seed.users.bob.id) {
        await interaction.reply({ content: 'Not yours to decide.', flags: MessageFlags.Ephemeral });
        return;
      }
      await interaction.update({ content: 'Denied', components: [] });
    });
    const foreign = fake.click({ messageId: prompt.id, userId: fake.seed.users.bob.id, customId: 'deny:r1' });
    await fake.waitFor(() => foreign.acknowledged, 'the ephemeral notice');
    const notice = fake
      .messages(fake.seed.channels.general, fake.seed.users.bob.id)
      .find((m) => m.interactionId === foreign.id);
    expect(notice?.content).toBe('Not yours to decide.');
    expect(notice?.ephemeralTo).toBe(fake.seed.users.bob.id);
    expect(fake.messages(fake.seed.channels.general).some((m) => m.interactionId === foreign.id)).toBe(false);
    expect(fake.message(prompt.id)?.content).toBe('Allow?');

    const own = fake.click({ messageId: prompt.id, userId: fake.seed.users.owner.id, customId: 'deny:r1' });
    await fake.waitFor(() => own.acknowledged, 'the update');
    // A second acknowledgement (another process, a retry) is refused; discord.js itself refuses locally.
    const second = await fetch(`${fake.apiRoot}/v10/interactions/${own.id}/${own.token}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 4, data: { content: 'again' } }),
    });
    expect(second.status).toBe(400);
    expect(await second.json()).toMatchObject({ code: 40060 });
    expect(own.callbacks.map((c) => [c.type, c.status, c.errorCode])).toEqual([
      [7, 204, undefined],
      [4, 400, 40060],
    ]);
    expect(fake.message(prompt.id)).toMatchObject({ content: 'Denied', components: [] });
  });

  it('refuses a first callback after the acknowledgement window with 10062 Unknown interaction', async () => {
    kit = await startDiscordKit({ interactionWindowMs: 100 });
    const { fake } = kit;
    const client = await kit.ready();
    const channel = client.channels.cache.get(fake.seed.channels.general);
    if (channel?.type !== ChannelType.GuildText) throw new Error('no text channel');
    const prompt = await channel.send({ content: 'Allow?', components: buttons('allow:r1') });
    const outcome = new Promise<unknown>((resolve) => {
      client.on(Events.InteractionCreate, async (interaction) => {
        if (!interaction.isButton()) return;
        // Slow work before the acknowledgement: past the window whatever the machine's speed.
        await sleep(250);
        resolve(
          await interaction.deferUpdate().catch((e: unknown) => (e instanceof DiscordAPIError ? e.code : e)),
        );
      });
    });
    const click = fake.click({
      messageId: prompt.id,
      userId: fake.seed.users.owner.id,
      customId: 'allow:r1',
    });
    expect(await outcome).toBe(10062);
    expect(click.acknowledged).toBeUndefined();
    expect(click.callbacks[0]).toMatchObject({ type: 6, status: 404, errorCode: 10062 });
  });

  it('registers slash commands by bulk overwrite (global and guild) and answers an invocation with options', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const application = client.application;
    if (application === null) throw new Error('no application');
    await application.commands.set([
      { name: 'status', description: 'Show the session status' },
      {
        name: 'model',
        description: 'Switch the model',
        options: [{ type: 3, name: 'name', description: 'Model', required: true }],
      },
    ]);
    const guildCommands = await application.commands.set(
      [{ name: 'approve', description: 'Approve a request' }],
      fake.seed.guildId,
    );
    expect(fake.commands().map((c) => c.name)).toEqual(['status', 'model']);
    expect(fake.commands(fake.seed.guildId).map((c) => c.name)).toEqual(['approve']);
    expect(guildCommands.first()?.guildId).toBe(fake.seed.guildId);
    const firstIds = fake.commands().map((c) => c.id);
    await application.commands.set([
      {
        name: 'model',
        description: 'Switch the model',
        options: [{ type: 3, name: 'name', description: 'Model', required: true }],
      },
    ]);
    expect(fake.commands().map((c) => c.id)).toEqual([firstIds[1]]);
    expect((await application.commands.fetch()).map((c) => c.name)).toEqual(['model']);
    const invalid = await application.commands
      .set([{ name: 'Bad Name', description: 'x' }])
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(DiscordAPIError);

    client.on(Events.InteractionCreate, async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      await interaction.deferReply({ flags: MessageFlags.Ephemeral });
      await interaction.editReply(`model is now ${interaction.options.getString('name', true)}`);
    });
    const invocation = fake.command({
      name: 'model',
      userId: fake.seed.users.alice.id,
      channelId: fake.seed.channels.general,
      options: { name: 'gpt-x' },
    });
    await fake.waitFor(
      () => fake.message(invocation.originalMessageId ?? '')?.loading === false || undefined,
      'the edited reply',
    );
    const answer = fake.message(invocation.originalMessageId ?? '');
    expect(answer).toMatchObject({ content: 'model is now gpt-x', ephemeralTo: fake.seed.users.alice.id });
    expect(invocation.callbacks.map((c) => c.type)).toEqual([5]);
    const inDm = fake.command({ name: 'model', userId: fake.seed.users.bob.id, options: { name: 'small' } });
    await fake.waitFor(
      () => fake.message(inDm.originalMessageId ?? '')?.loading === false || undefined,
      'the DM reply',
    );
    expect(fake.message(inDm.originalMessageId ?? '')?.channelId).toBe(
      fake.dmChannel(fake.seed.users.bob.id).id,
    );
    expect(() => fake.command({ name: 'approve', userId: fake.seed.users.alice.id })).toThrow(
      /not registered/,
    );
    expect(() =>
      fake.command({
        name: 'model',
        userId: fake.seed.users.alice.id,
        channelId: fake.seed.channels.general,
      }),
    ).toThrow(/needs option name/);
  });

  it('answers a callback with_response=true with the created message', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    await client.application?.commands.set([{ name: 'status', description: 'Show status' }]);
    const responses: (string | undefined)[] = [];
    client.on(Events.InteractionCreate, async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      const response = await interaction.reply({ content: 'all good', withResponse: true });
      responses.push(response.resource?.message?.id);
    });
    const invocation = fake.command({ name: 'status', userId: fake.seed.users.alice.id });
    await fake.waitFor(() => responses.length === 1, 'the reply');
    expect(responses).toEqual([invocation.originalMessageId]);
    expect(invocation.acknowledged).toMatchObject({ type: 4, status: 200 });
  });

  it('records a modal shown for a button (callback type 9)', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const channel = client.channels.cache.get(fake.seed.channels.general);
    if (channel?.type !== ChannelType.GuildText) throw new Error('no text channel');
    const prompt = await channel.send({ content: 'Edit?', components: buttons('edit:1') });
    client.on(Events.InteractionCreate, async (interaction) => {
      if (!interaction.isButton()) return;
      await interaction.showModal({
        custom_id: 'edit-modal',
        title: 'Edit the command',
        components: [{ type: 1, components: [{ type: 4, custom_id: 'cmd', label: 'Command', style: 1 }] }],
      });
    });
    const click = fake.click({ messageId: prompt.id, userId: fake.seed.users.owner.id, customId: 'edit:1' });
    await fake.waitFor(() => click.acknowledged, 'the modal');
    expect(click.acknowledged?.type).toBe(9);
    expect(click.modal).toMatchObject({ custom_id: 'edit-modal', title: 'Edit the command' });
  });

  it('a follow-up after deferReply fills the thinking message; later follow-ups are new messages', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    await client.application?.commands.set(
      [{ name: 'status', description: 'Show status' }],
      fake.seed.guildId,
    );
    client.on(Events.InteractionCreate, async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      await interaction.deferReply();
      await interaction.followUp('part one');
      await interaction.followUp('part two');
    });
    const invocation = fake.command({
      name: 'status',
      userId: fake.seed.users.alice.id,
      channelId: fake.seed.channels.general,
    });
    await fake.waitFor(() => invocation.followUpIds.length === 1, 'the second follow-up');
    const shown = fake.messages(fake.seed.channels.general).map((m) => [m.content, m.loading]);
    expect(shown).toEqual([
      ['part one', false],
      ['part two', false],
    ]);
  });
});

describe('fake Discord REST (through discord.js)', () => {
  let kit: DiscordKit | undefined;
  afterEach(async () => {
    const errors = [...(kit?.fake.internalErrors ?? []), ...(kit?.clientErrors ?? [])];
    await kit?.close();
    kit = undefined;
    expect(errors).toEqual([]);
  });

  it('lets discord.js retry a 429 (with Discord rate-limit headers) and a 500, and records each attempt', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const channel = client.channels.cache.get(fake.seed.channels.general);
    if (channel?.type !== ChannelType.GuildText) throw new Error('no text channel');
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
    const channel = client.channels.cache.get(fake.seed.channels.general);
    if (channel?.type !== ChannelType.GuildText) throw new Error('no text channel');
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
    const channel = client.channels.cache.get(fake.seed.channels.general);
    if (channel?.type !== ChannelType.GuildText) throw new Error('no text channel');
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

  it('blanks content in GET messages when the app lacks the Message Content intent in the portal', async () => {
    kit = await startDiscordKit({ privilegedIntents: 0 });
    const { fake } = kit;
    const client = await kit.ready({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages] });
    const channel = client.channels.cache.get(fake.seed.channels.general);
    if (channel?.type !== ChannelType.GuildText) throw new Error('no text channel');
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
