import { setTimeout as sleep } from 'node:timers/promises';
import { DiscordAPIError, Events, MessageFlags } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { buttonRow, type DiscordKit, startDiscordKit, textChannel } from './fake-discord/discord-test-kit.js';
import { fieldOf } from './fake-discord/is-record.js';

describe('fake Discord with real discord.js: interactions and slash commands', () => {
  let kit: DiscordKit | undefined;
  afterEach(async () => {
    const problems = kit?.problems() ?? [];
    await kit?.close();
    kit = undefined;
    expect(problems).toEqual([]);
  });

  it('records a button click acknowledged by deferUpdate, then the prompt edited, in order', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const channel = textChannel(client, fake.seed.channels.general);
    const prompt = await channel.send({ content: 'Allow?', components: buttonRow('allow:r1', 'deny:r1') });
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
    const channel = textChannel(client, fake.seed.channels.general);
    const prompt = await channel.send({ content: 'Allow?', components: buttonRow('allow:r1', 'deny:r1') });
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

  it('refuses a follow-up before any acknowledgement (10015) and accepts it after', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const prompt = await textChannel(client, fake.seed.channels.general).send({
      content: 'Go?',
      components: buttonRow('go'),
    });
    const click = fake.click({ messageId: prompt.id, userId: fake.seed.users.alice.id, customId: 'go' });
    const post = (path: string, body: unknown) =>
      fetch(`${fake.apiRoot}/v10/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const early = await post(`webhooks/${fake.applicationId}/${click.token}?wait=true`, {
      content: 'too early',
    });
    expect([early.status, fieldOf(await early.json(), 'code')]).toEqual([404, 10015]);
    expect((await post(`interactions/${click.id}/${click.token}/callback`, { type: 6 })).status).toBe(204);
    const later = await post(`webhooks/${fake.applicationId}/${click.token}?wait=true`, { content: 'now' });
    expect(later.status).toBe(200);
    expect(fake.messages(fake.seed.channels.general).map((m) => m.content)).toEqual(['Go?', 'now']);
  });

  it('refuses a first callback after the acknowledgement window with 10062 Unknown interaction', async () => {
    kit = await startDiscordKit({ interactionWindowMs: 100 });
    const { fake } = kit;
    const client = await kit.ready();
    const channel = textChannel(client, fake.seed.channels.general);
    const prompt = await channel.send({ content: 'Allow?', components: buttonRow('allow:r1') });
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
    const channel = textChannel(client, fake.seed.channels.general);
    const prompt = await channel.send({ content: 'Edit?', components: buttonRow('edit:1') });
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
