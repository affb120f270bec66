import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDiscord, type FakeMessage, startFakeDiscord } from '../../fakes/fake-discord.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { waitFor } from '../../gateway/e2e/gateway-kit.js';
import { type DiscordGateway, gatewayHome, removeDirs, startDiscordGateway } from './discord-gateway-kit.js';

/** Settings and features of the Discord platform through the whole gateway (embedded queue). */
describe('the gateway on Discord: settings, expiry, clarify, home channel', () => {
  let model: FakeOpenAi;
  let fake: FakeDiscord | undefined;
  let dirs: ReturnType<typeof gatewayHome> | undefined;
  let running: DiscordGateway | undefined;

  beforeAll(async () => {
    model = await startFakeOpenAi();
  });
  afterAll(async () => {
    await model.close();
  });
  afterEach(async () => {
    await running?.gw.stop();
    running = undefined;
    const problems = [...(fake?.internalErrors ?? [])];
    await fake?.close();
    fake = undefined;
    if (dirs !== undefined) removeDirs(dirs.home, dirs.workdir);
    dirs = undefined;
    model.reset();
    expect(problems).toEqual([]);
  });

  async function start(
    yaml: (f: FakeDiscord) => string[],
    env: (f: FakeDiscord) => Record<string, string> = () => ({}),
  ) {
    const started = await startFakeDiscord({ heartbeatIntervalMs: 250 });
    fake = started;
    const { alice } = started.seed.users;
    const lines = yaml(started);
    // Lines starting with two spaces continue the gateway: section.
    const gatewayLines = lines.filter((line) => line.startsWith('  admin_users'));
    const rest = lines.filter((line) => !gatewayLines.includes(line));
    dirs = gatewayHome(
      ['gateway:', `  allowed_users: ["discord:${alice.id}"]`, ...gatewayLines, ...rest].join('\n'),
    );
    running = await startDiscordGateway({ fake: started, model, ...dirs, env: env(started) });
    return { fake: started, gw: running };
  }
  const botTexts = (f: FakeDiscord, channelId: string) =>
    f
      .messages(channelId)
      .filter((m) => m.authorId === f.bot.id)
      .map((m) => m.content);
  const prompt = (f: FakeDiscord, channelId: string) =>
    f.messages(channelId).find((m) => f.buttons(m.id).length > 0) as FakeMessage | undefined;

  it('lets an allowlisted bot talk when allow_bots says so, and no other bot', async () => {
    const { fake: f } = await start((x) => [
      'platforms:',
      '  discord:',
      '    allow_bots: mentions',
      '    auto_thread: false',
      `    allowed_users: ["${x.seed.users.otherBot.id}"]`,
    ]);
    const { general } = f.seed.channels;
    const stranger = f.addUser({ username: 'stranger-bot', bot: true });
    f.addMember(f.seed.guildId, stranger.id);
    model.script({ content: 'Hello, fellow bot.' });
    f.say(general, { authorId: stranger.id, content: `<@${f.bot.id}> hi` });
    f.say(general, { authorId: f.seed.users.otherBot.id, content: 'no mention, ignored' });
    f.say(general, { authorId: f.seed.users.otherBot.id, content: `<@${f.bot.id}> status?` });
    await waitFor(() => botTexts(f, general).includes('Hello, fellow bot.'));
    expect(model.requests).toHaveLength(1);
  });

  it('expires a prompt after approvals.timeout: buttons removed, the command not run, a late click told so', async () => {
    const { fake: f, gw } = await start(() => ['approvals:', '  timeout: 1']);
    const { alice } = f.seed.users;
    const dm = f.dmChannel(alice.id).id;
    mkdirSync(join(gw.gw.workdir, 'build'));
    model.script(
      {
        content: '',
        toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command: 'rm -rf build' }) }],
      },
      { content: 'Nobody answered.' },
    );
    f.dm({ authorId: alice.id, content: 'clean up' });
    await waitFor(() => prompt(f, dm) !== undefined);
    const shown = prompt(f, dm) as FakeMessage;
    const once = f.buttons(shown.id)[0]?.customId ?? '';
    await waitFor(() => botTexts(f, dm).includes('Nobody answered.'), 30_000);
    expect(f.message(shown.id)?.content).toMatch(/did NOT run/);
    expect(f.buttons(shown.id)).toEqual([]);
    expect(existsSync(join(gw.gw.workdir, 'build'))).toBe(true);
    const late = f.click({ messageId: shown.id, userId: alice.id, customId: once, force: true });
    await waitFor(() => late.followUpIds.length > 0);
    expect(f.messages(dm, alice.id).at(-1)?.content).toMatch(/expired|already decided|not known/i);
    expect(existsSync(join(gw.gw.workdir, 'build'))).toBe(true);
  });

  it('asks a clarify question with buttons and resumes with the pressed answer', async () => {
    const { fake: f } = await start(() => []);
    const { alice } = f.seed.users;
    const dm = f.dmChannel(alice.id).id;
    model.script(
      {
        content: '',
        toolCalls: [
          {
            name: 'clarify',
            arguments: JSON.stringify({ question: 'Which branch?', choices: ['main', 'dev'] }),
          },
        ],
      },
      { content: 'Using dev.' },
    );
    f.dm({ authorId: alice.id, content: 'deploy it' });
    await waitFor(() => prompt(f, dm) !== undefined);
    const shown = prompt(f, dm) as FakeMessage;
    expect(f.buttons(shown.id).map((b) => b.label)).toEqual(['main', 'dev']);
    f.click({ messageId: shown.id, userId: alice.id, label: 'dev' });
    await waitFor(() => botTexts(f, dm).includes('Using dev.'));
    expect(f.buttons(shown.id)).toEqual([]);
  });

  it('delivers a webhook result to DISCORD_HOME_CHANNEL while no chat was made home with /sethome', async () => {
    const { fake: f, gw } = await start(
      () => [
        'platforms:',
        '  webhook:',
        '    enabled: true',
        '    routes:',
        '      alerts:',
        '        insecure: true',
        '        deliver: { platform: discord, chat_id: home }',
      ],
      (x) => ({ DISCORD_HOME_CHANNEL: x.seed.channels.random }),
    );
    const { random } = f.seed.channels;
    model.script({ content: 'Disk on db1 is 95% full.' });
    const origin = gw.gw.baseURL.replace(/\/v1$/, '');
    const posted = await fetch(`${origin}/webhooks/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ alert: 'disk' }),
    });
    expect(posted.status).toBe(202);
    await waitFor(() => botTexts(f, random).includes('Disk on db1 is 95% full.'));
  });

  it('runs discord_admin only after an admin approves it with the buttons', async () => {
    const { fake: f } = await start((x) => [
      `  admin_users: ["discord:${x.seed.users.owner.id}"]`,
      'platforms:',
      '  discord:',
      '    auto_thread: false',
    ]);
    const { general } = f.seed.channels;
    const { owner } = f.seed.users;
    model.script(
      {
        content: '',
        toolCalls: [
          {
            name: 'discord_admin',
            arguments: JSON.stringify({ action: 'set_slowmode', seconds: 45, reason: 'calm down' }),
          },
        ],
      },
      { content: 'Slowmode is on.' },
    );
    f.say(general, { authorId: owner.id, content: `<@${f.bot.id}> slow this channel down` });
    await waitFor(() => prompt(f, general) !== undefined);
    const shown = prompt(f, general) as FakeMessage;
    expect(shown.content).toMatch(/moderate this Discord server/);
    expect(shown.content).toContain('set_slowmode');
    expect(shown.content).toContain('45 seconds');
    expect(f.world.channels.get(general)?.rateLimitPerUser).toBe(0);
    f.click({ messageId: shown.id, userId: owner.id, label: 'Allow once' });
    await waitFor(() => botTexts(f, general).includes('Slowmode is on.'));
    expect(f.world.channels.get(general)?.rateLimitPerUser).toBe(45);
    expect(f.callsTo('PATCH /channels/:channel_id').at(-1)?.reason).toBe('calm down');
  });
});
