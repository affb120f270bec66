import { InteractionResponseType } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatAddress, InboundEvent } from '../../../src/platforms/adapter.js';
import { startFakeDiscord } from '../../fakes/fake-discord.js';
import { deferred } from '../telegram/telegram-kit.js';
import { type DiscordSetup, poll, recordingSink, setupDiscord } from './discord-kit.js';

const EDIT = 'PATCH /channels/:channel_id/messages/:message_id';
const PUT_GUILD = 'PUT /applications/:application_id/guilds/:guild_id/commands';
const PUT_GLOBAL = 'PUT /applications/:application_id/commands';

describe('discord interactions: buttons and slash commands', () => {
  let setup: DiscordSetup | undefined;
  afterEach(async () => {
    const problems = setup?.fake.internalErrors ?? [];
    await setup?.close();
    setup = undefined;
    expect(problems).toEqual([]);
  });

  async function started(env: Record<string, string> = {}) {
    setup = await setupDiscord({ env: { DISCORD_COMMAND_SYNC: 'guild', ...env } });
    const recorder = recordingSink();
    await setup.adapter.start(recorder.sink);
    return { ...setup, recorder };
  }

  const choices = [
    { data: 'ea:once:req1', label: '✅ Allow once', style: 'primary' as const },
    { data: 'ea:deny:req1', label: '❌ Deny', style: 'danger' as const },
  ];

  it('acknowledges a click at once, before the gateway works on it, then shows the notice to the clicker only', async () => {
    const { fake, adapter, recorder } = await started();
    const { general } = fake.seed.channels;
    const { alice } = fake.seed.users;
    const to: ChatAddress = { chatId: general };
    const prompt = await adapter.sendPrompt(to, { text: 'Run `rm -rf build`?', choices, fallbackText: 'x' });
    expect(fake.buttons(prompt.messageId).map((b) => [b.label, b.customId, b.style])).toEqual([
      ['Allow once', 'ea:once:req1', 1],
      ['Deny', 'ea:deny:req1', 4],
    ]);
    const slow = deferred();
    recorder.answerWith(async () => {
      await slow.promise; // the gateway is slow (store, model…)
      await adapter.editText(to, prompt.messageId, { text: 'Allowed once by alice' });
      return { status: 'answered', notice: 'Done: allowed once.' };
    });
    const click = fake.click({ messageId: prompt.messageId, userId: alice.id, label: 'Allow once' });
    // Acknowledged while the gateway has not even answered yet.
    await fake.waitFor(() => click.acknowledged, 'the deferral');
    await poll(() => recorder.events.length === 1, 'the click handed over');
    expect(click.acknowledged?.type).toBe(InteractionResponseType.DeferredMessageUpdate);
    slow.resolve();
    await fake.waitForCall(EDIT);
    await poll(() => fake.messages(general, alice.id).some((m) => m.ephemeralTo === alice.id), 'the notice');
    const edit = fake.callsTo(EDIT)[0];
    expect(click.acknowledged?.seq).toBeLessThan(edit?.seq ?? 0);
    expect(click.callbacks).toHaveLength(1);
    expect(fake.message(prompt.messageId)).toMatchObject({
      content: 'Allowed once by alice',
      components: [],
    });
    expect(
      fake
        .messages(general, alice.id)
        .filter((m) => m.ephemeralTo === alice.id)
        .map((m) => m.content),
    ).toEqual(['Done: allowed once.']);
    // Nobody else sees the notice.
    expect(
      fake.messages(general, fake.seed.users.bob.id).some((m) => m.content === 'Done: allowed once.'),
    ).toBe(false);
    expect(recorder.events[0]).toMatchObject({
      kind: 'action',
      messageId: prompt.messageId,
      data: 'ea:once:req1',
      chat: { chatId: general, chatType: 'group' },
      sender: { userId: alice.id, roles: [fake.seed.roles.member] },
    });
  });

  it('tells a clicker the gateway refused (an unknown user) privately, and changes nothing', async () => {
    const { fake, adapter, recorder } = await started();
    const { general } = fake.seed.channels;
    recorder.answerWith(async () => ({ status: 'rejected', reason: 'not_direct' }));
    const prompt = await adapter.sendPrompt(
      { chatId: general },
      { text: 'Run it?', choices, fallbackText: 'x' },
    );
    const click = fake.click({ messageId: prompt.messageId, userId: fake.seed.users.bob.id, label: 'Deny' });
    await poll(
      () => fake.messages(general, fake.seed.users.bob.id).some((m) => m.ephemeralTo !== undefined),
      'notice',
    );
    expect(click.callbacks.map((c) => c.type)).toEqual([InteractionResponseType.DeferredMessageUpdate]);
    expect(fake.buttons(prompt.messageId)).toHaveLength(2);
  });

  it('registers the chat commands per server and answers a slash command through its interaction', async () => {
    const { fake, adapter, recorder } = await started();
    await adapter.setCommands([
      { name: 'status', description: 'What is running' },
      { name: 'Bad Name!', description: 'skipped: Discord refuses the name' },
      { name: 'approve', description: 'x'.repeat(300) },
    ]);
    const registered = fake.commands(fake.seed.guildId);
    expect(registered.map((c) => c.name)).toEqual(['status', 'approve']);
    expect(registered[1]?.description).toHaveLength(100);
    expect(registered[0]?.options?.map((o) => o.name)).toEqual(['args']);
    expect(fake.callsTo(PUT_GUILD)).toHaveLength(1);

    const { general } = fake.seed.channels;
    let event: InboundEvent | undefined;
    recorder.answerWith(async (received) => {
      event = received;
      const to = { chatId: general };
      await adapter.sendText(to, {
        text: 'Session: idle.',
        replyToMessageId: received.kind === 'command' ? received.messageId : '',
      });
      await adapter.sendText(to, {
        text: 'Second part.',
        replyToMessageId: received.kind === 'command' ? received.messageId : '',
      });
      return { status: 'accepted' };
    });
    const command = fake.command({
      name: 'status',
      userId: fake.seed.users.alice.id,
      channelId: general,
      options: { args: 'now' },
    });
    await poll(() => command.followUpIds.length > 0, 'the follow-up');
    expect(command.acknowledged?.type).toBe(InteractionResponseType.DeferredChannelMessageWithSource);
    expect(event).toMatchObject({
      kind: 'command',
      name: 'status',
      args: 'now',
      messageId: command.id,
      addressed: true,
    });
    expect(fake.message(command.originalMessageId ?? '')).toMatchObject({
      content: 'Session: idle.',
      loading: false,
    });
    expect(fake.message(command.followUpIds[0] ?? '')?.content).toBe('Second part.');

    // A resumed session may replay the interaction: it is neither acknowledged nor run again.
    fake.dispatch('INTERACTION_CREATE', command.payload);
    // A message sent after it on the same connection: once it arrived, the replay was seen.
    const marker = fake.dm({ authorId: fake.seed.users.alice.id, content: 'after the replay' });
    await poll(() => recorder.events.some((e) => e.eventId === marker.id), 'the later message');
    expect(command.callbacks).toHaveLength(1);
    expect(recorder.events.filter((e) => e.eventId === command.id)).toHaveLength(1);
    expect(fake.message(command.originalMessageId ?? '')?.content).toBe('Session: idle.');
  });

  it('takes away "thinking…" when a command says nothing, and refuses commands in ignored channels privately', async () => {
    const fake = await startFakeDiscord({ heartbeatIntervalMs: 250 });
    try {
      const { general, random } = fake.seed.channels;
      setup = await setupDiscord({
        fake,
        env: { DISCORD_COMMAND_SYNC: 'guild', DISCORD_IGNORED_CHANNELS: random },
      });
      const recorder = recordingSink();
      await setup.adapter.start(recorder.sink);
      await setup.adapter.setCommands([{ name: 'stop', description: 'Stop' }]);
      const { alice } = fake.seed.users;
      const quiet = fake.command({ name: 'stop', userId: alice.id, channelId: general });
      await poll(() => fake.message(quiet.originalMessageId ?? '')?.deleted, 'the deferred reply removed');
      expect(recorder.events).toMatchObject([{ kind: 'command', name: 'stop', args: '' }]);

      const refused = fake.command({ name: 'stop', userId: alice.id, channelId: random });
      await poll(() => fake.message(refused.originalMessageId ?? '')?.content, 'the refusal');
      expect(fake.message(refused.originalMessageId ?? '')).toMatchObject({
        content: 'I do not answer in this channel.',
        ephemeralTo: alice.id,
      });
      expect(recorder.events).toHaveLength(1);
    } finally {
      await setup?.close();
      setup = undefined;
      await fake.close();
    }
  });

  it('syncs nothing when the list did not change, globally when asked, and nothing at all when off', async () => {
    const { fake, adapter } = await started({ DISCORD_COMMAND_SYNC: 'global' });
    const menu = [{ name: 'help', description: 'What I can do' }];
    await adapter.setCommands(menu);
    await adapter.setCommands(menu);
    expect(fake.callsTo(PUT_GLOBAL)).toHaveLength(1);
    expect(fake.commands().map((c) => c.name)).toEqual(['help']);
    await setup?.close();

    setup = await setupDiscord({ env: { DISCORD_COMMAND_SYNC: 'off' } });
    await setup.adapter.start(recordingSink().sink);
    await setup.adapter.setCommands(menu);
    expect(setup.fake.calls.filter((c) => c.route.includes('/commands'))).toEqual([]);
  });
});
