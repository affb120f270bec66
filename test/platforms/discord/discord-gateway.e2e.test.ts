import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { InteractionResponseType } from 'discord.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeDiscord, type FakeMessage, startFakeDiscord } from '../../fakes/fake-discord.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { deleteKeys, type QueueMode, waitFor } from '../../gateway/e2e/gateway-kit.js';
import { type DiscordGateway, gatewayHome, removeDirs, startDiscordGateway } from './discord-gateway-kit.js';

const EDIT = 'PATCH /channels/:channel_id/messages/:message_id';

function terminalCall(command: string) {
  return { content: '', toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command }) }] };
}

describe.each<QueueMode>(['embedded', 'bullmq'])(
  'the gateway on Discord (discord.js, fake REST + gateway, fake model; %s queue)',
  (mode) => {
    let model: FakeOpenAi;
    let fake: FakeDiscord;
    let dirs: ReturnType<typeof gatewayHome>;
    let running: DiscordGateway | undefined;

    beforeAll(async () => {
      model = await startFakeOpenAi();
    });
    afterAll(async () => {
      await model.close();
    });
    beforeEach(async () => {
      fake = await startFakeDiscord({ heartbeatIntervalMs: 250 });
      const { alice, bob, owner } = fake.seed.users;
      dirs = gatewayHome(
        [
          'gateway:',
          `  allowed_users: ["discord:${alice.id}", "discord:${bob.id}"]`,
          `  admin_users: ["discord:${owner.id}"]`,
          'platforms:',
          '  discord:',
          '    auto_thread: true',
        ].join('\n'),
      );
    });
    afterEach(async () => {
      const logs = running?.logs.lines ?? [];
      await running?.gw.stop();
      running = undefined;
      const problems = [...fake.internalErrors];
      await fake.close();
      removeDirs(dirs.home, dirs.workdir);
      if (mode === 'bullmq') await deleteKeys(`${dirs.redisPrefix}*`);
      model.reset();
      for (const line of logs) expect(line).not.toContain(fake.token);
      expect(problems).toEqual([]);
    });

    async function start(): Promise<DiscordGateway> {
      running = await startDiscordGateway({ fake, model, mode, ...dirs });
      return running;
    }
    const dmOf = (userId: string) => fake.dmChannel(userId).id;
    const botTexts = (channelId: string) =>
      fake
        .messages(channelId)
        .filter((m) => m.authorId === fake.bot.id)
        .map((m) => m.content);
    const prompts = (channelId: string) =>
      fake.messages(channelId).filter((m) => fake.buttons(m.id).length > 0);
    const notices = (channelId: string, userId: string) =>
      fake
        .messages(channelId, userId)
        .filter((m) => m.ephemeralTo === userId)
        .map((m) => m.content);

    it('answers a DM as a reply, shows typing, reacts ✅ and registers the slash commands', async () => {
      await start();
      const { alice } = fake.seed.users;
      model.script({ content: 'Hello **Alice**!' });
      const question = fake.dm({ authorId: alice.id, content: 'hi' });
      await waitFor(() => botTexts(dmOf(alice.id)).includes('Hello **Alice**!'));
      const answer = fake.messages(dmOf(alice.id)).at(-1);
      expect(answer?.replyTo?.messageId).toBe(question.id);
      expect(fake.typing(dmOf(alice.id)).length).toBeGreaterThan(0);
      await waitFor(() => fake.message(question.id)?.reactions.has('✅') === true);
      expect(fake.message(question.id)?.reactions.has('👀')).toBe(false);
      await waitFor(() => fake.commands(fake.seed.guildId).some((c) => c.name === 'approve'));
    });

    it('in a server: answers a mention in a new thread, ignores the rest and strangers', async () => {
      await start();
      const { general } = fake.seed.channels;
      const { alice, otherBot } = fake.seed.users;
      const stranger = fake.addUser({ username: 'eve' });
      fake.addMember(fake.seed.guildId, stranger.id);
      model.script({ content: 'Builds are green.' });
      fake.say(general, { authorId: alice.id, content: 'chatting among ourselves' });
      fake.say(general, { authorId: stranger.id, content: `<@${fake.bot.id}> let me in` });
      fake.say(general, { authorId: otherBot.id, content: `<@${fake.bot.id}> bot talk` });
      const mention = fake.say(general, {
        authorId: alice.id,
        content: `<@${fake.bot.id}> how are the builds?`,
      });
      await waitFor(() => botTexts(mention.id).includes('Builds are green.'));
      expect(fake.world.channels.get(mention.id)?.name).toBe('how are the builds?');
      expect(model.requests).toHaveLength(1);
      expect(botTexts(general)).toEqual([]);
    });

    const choices = [
      { label: 'Allow once', shown: /Allowed once by alice/, runs: true },
      { label: 'Allow for this session', shown: /Allowed for this session by alice/, runs: true },
      { label: 'Always allow', shown: /Always allowed by alice/, runs: true },
      { label: 'Deny', shown: /Denied by alice/, runs: false },
    ] as const;
    for (const choice of choices) {
      it(`runs the approval round-trip with the button "${choice.label}"`, async () => {
        const { gw } = await start();
        const { alice } = fake.seed.users;
        mkdirSync(join(gw.workdir, 'build'));
        model.script(terminalCall('rm -rf build'), { content: 'Finished.' });
        fake.dm({ authorId: alice.id, content: 'clean the build folder' });
        await waitFor(() => prompts(dmOf(alice.id)).length > 0);
        const [prompt] = prompts(dmOf(alice.id)) as [FakeMessage];
        expect(fake.buttons(prompt.id).map((b) => [b.label, b.style])).toEqual([
          ['Allow once', 1],
          ['Allow for this session', 1],
          ['Always allow', 1],
          ['Deny', 4],
        ]);
        for (const button of fake.buttons(prompt.id))
          expect(button.customId).toMatch(/^ea:(once|session|always|deny):/);
        const click = fake.click({ messageId: prompt.id, userId: alice.id, label: choice.label });
        await waitFor(() => botTexts(dmOf(alice.id)).includes('Finished.'));
        expect(existsSync(join(gw.workdir, 'build'))).toBe(!choice.runs);
        expect(fake.message(prompt.id)?.content).toMatch(choice.shown);
        expect(fake.buttons(prompt.id)).toEqual([]);
        // Acknowledged first (deferred update), before the prompt was edited to the outcome.
        expect(click.acknowledged?.type).toBe(InteractionResponseType.DeferredMessageUpdate);
        const edit = fake.callsTo(EDIT).find((call) => call.params['message_id'] === prompt.id);
        expect(click.acknowledged?.seq).toBeLessThan(edit?.seq ?? 0);
        expect(click.acknowledged?.elapsedMs).toBeLessThan(3000);
        await waitFor(() => notices(dmOf(alice.id), alice.id).some((n) => /^Done: /.test(n)));
      });
    }

    it('resolves the request of the prompt that was clicked, not the oldest one', async () => {
      const { gw } = await start();
      const { alice } = fake.seed.users;
      mkdirSync(join(gw.workdir, 'first'));
      mkdirSync(join(gw.workdir, 'second'));
      // One session with two pending approvals; the newer prompt is clicked first.
      model.script(terminalCall('rm -rf first'));
      fake.dm({ authorId: alice.id, content: 'remove first' });
      await waitFor(() => promptCount() === 1);
      model.script(terminalCall('rm -rf second'), { content: 'Second removed.' });
      fake.dm({ authorId: alice.id, content: 'remove second' });
      await waitFor(() => promptCount() === 2);
      const [older, newer] = allPrompts() as [FakeMessage, FakeMessage];
      expect(older.content).toContain('rm -rf first');
      expect(newer.content).toContain('rm -rf second');
      fake.click({ messageId: newer.id, userId: alice.id, label: 'Allow once' });
      await waitFor(() => !existsSync(join(gw.workdir, 'second')));
      expect(existsSync(join(gw.workdir, 'first'))).toBe(true);
      expect(fake.buttons(older.id)).toHaveLength(4);
      model.script({ content: 'First removed.' });
      fake.click({ messageId: older.id, userId: alice.id, label: 'Allow once' });
      await waitFor(() => !existsSync(join(gw.workdir, 'first')));
    });

    function allPrompts(): FakeMessage[] {
      return [...fake.world.messages.values()]
        .filter((m) => m.authorId === fake.bot.id && !m.deleted && fake.buttons(m.id).length > 0)
        .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
    }
    function promptCount(): number {
      return allPrompts().length;
    }

    it('answers foreign, forged and stale clicks privately without changing anything', async () => {
      const { gw } = await start();
      const { alice, bob } = fake.seed.users;
      mkdirSync(join(gw.workdir, 'build'));
      model.script(terminalCall('rm -rf build'), { content: 'Left it alone.' });
      fake.dm({ authorId: alice.id, content: 'remove build' });
      await waitFor(() => prompts(dmOf(alice.id)).length > 0);
      const [prompt] = prompts(dmOf(alice.id)) as [FakeMessage];
      const once = fake.buttons(prompt.id)[0]?.customId ?? '';
      // Bob cannot see Alice's DM; his forged click carries her button's id into a DM of his own.
      const bobPrompt = await running?.adapter.sendPrompt(
        { chatId: dmOf(bob.id) },
        { text: 'Pick', choices: [{ data: 'x:1234', label: 'x' }], fallbackText: 'x' },
      );
      const foreign = fake.click({
        messageId: bobPrompt?.messageId ?? '',
        userId: bob.id,
        customId: once,
        force: true,
      });
      const forged = fake.click({
        messageId: prompt.id,
        userId: alice.id,
        customId: 'ea:once:NotARealId99',
        force: true,
      });
      const garbage = fake.click({
        messageId: prompt.id,
        userId: alice.id,
        customId: 'rm -rf /',
        force: true,
      });
      await waitFor(
        () => notices(dmOf(alice.id), alice.id).length === 2 && notices(dmOf(bob.id), bob.id).length === 1,
      );
      for (const click of [foreign, forged, garbage]) expect(click.acknowledged?.type).toBe(6);
      expect(notices(dmOf(bob.id), bob.id)).toEqual([expect.stringMatching(/another chat|not valid/i)]);
      // Clicks are handled at once, side by side: their notices come in either order.
      expect([...notices(dmOf(alice.id), alice.id)].sort()).toEqual([
        expect.stringMatching(/not known/i),
        expect.stringMatching(/not valid/i),
      ]);
      expect(existsSync(join(gw.workdir, 'build'))).toBe(true);
      expect(fake.buttons(prompt.id)).toHaveLength(4);
      fake.click({ messageId: prompt.id, userId: alice.id, label: 'Deny' });
      await waitFor(() => botTexts(dmOf(alice.id)).includes('Left it alone.'));
      const stale = fake.click({ messageId: prompt.id, userId: alice.id, customId: once, force: true });
      await waitFor(() => stale.followUpIds.length > 0);
      expect(notices(dmOf(alice.id), alice.id).at(-1)).toMatch(/already decided|not known/i);
      expect(existsSync(join(gw.workdir, 'build'))).toBe(true);
    });

    it('only the requester or an admin decides: a member clicking someone else’s prompt is refused', async () => {
      const { gw } = await start();
      const { general } = fake.seed.channels;
      const { alice, bob, owner } = fake.seed.users;
      mkdirSync(join(gw.workdir, 'build'));
      model.script(terminalCall('rm -rf build'), { content: 'Owner approved it.' });
      const ask = fake.say(general, { authorId: alice.id, content: `<@${fake.bot.id}> clean the build` });
      await waitFor(() => prompts(ask.id).length > 0);
      const [prompt] = prompts(ask.id) as [FakeMessage];
      fake.click({ messageId: prompt.id, userId: bob.id, label: 'Allow once' });
      await waitFor(() => notices(ask.id, bob.id).length > 0);
      expect(notices(ask.id, bob.id)[0]).toMatch(/only the person who asked/i);
      expect(existsSync(join(gw.workdir, 'build'))).toBe(true);
      fake.click({ messageId: prompt.id, userId: owner.id, label: 'Allow once' });
      await waitFor(() => botTexts(ask.id).includes('Owner approved it.'));
      expect(fake.message(prompt.id)?.content).toMatch(/Allowed once by owner/);
    });

    it('answers a slash command through its interaction, with the text commands’ handler', async () => {
      await start();
      const { general } = fake.seed.channels;
      await waitFor(() => fake.commands(fake.seed.guildId).some((c) => c.name === 'status'));
      const command = fake.command({ name: 'status', userId: fake.seed.users.alice.id, channelId: general });
      await waitFor(() => (fake.message(command.originalMessageId ?? '')?.content ?? '') !== '');
      expect(command.acknowledged?.type).toBe(InteractionResponseType.DeferredChannelMessageWithSource);
      expect(fake.message(command.originalMessageId ?? '')?.content).toMatch(/session/i);
      expect(model.requests).toHaveLength(0);
    });

    it('splits a 5,000-character answer into parts of at most 2,000 with code fences intact', async () => {
      await start();
      const { alice } = fake.seed.users;
      const code = Array.from(
        { length: 120 },
        (_, i) => `console.log('line ${i} of the generated script');`,
      ).join('\n');
      const answer = `Here it is:\n\n\`\`\`js\n${code}\n\`\`\`\n\nDone.`;
      expect(answer.length).toBeGreaterThan(5_000);
      model.script({ content: answer });
      fake.dm({ authorId: alice.id, content: 'write me a script' });
      await waitFor(() => botTexts(dmOf(alice.id)).some((t) => t.endsWith('Done.')));
      const parts = botTexts(dmOf(alice.id));
      expect(parts.length).toBeGreaterThanOrEqual(3);
      for (const part of parts) {
        expect(part.length).toBeLessThanOrEqual(2000);
        expect((part.match(/```/g) ?? []).length % 2).toBe(0);
      }
      expect(parts.join('\n').replace(/\n```\n```js\n/g, '\n')).toContain(code.split('\n')[60] ?? '');
    });
  },
);
