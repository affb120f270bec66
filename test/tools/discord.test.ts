import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApprovalGate } from '../../src/approval/create-approval-gate.js';
import { createMemoryApprovalStore } from '../../src/approval/memory-approval-store.js';
import { isHermesError } from '../../src/errors/hermes-error.js';
import { createDiscordRest } from '../../src/platforms/discord/discord-rest.js';
import { createDiscordToolOperations } from '../../src/platforms/discord/discord-tool-service.js';
import { ToolPause } from '../../src/registry/tool-pause.js';
import type { ToolServices } from '../../src/registry/tool-services.js';
import type { ToolContext } from '../../src/registry/tool-types.js';
import { discordConversation } from '../../src/tools/discord/discord-conversation.js';
import { discordTool } from '../../src/tools/discord.js';
import { discordAdminTool } from '../../src/tools/discord-admin.js';
import { type FakeDiscord, startFakeDiscord } from '../fakes/fake-discord.js';
import { makeTempHome, silentLogger, testConfig, testServices } from '../helpers/test-config.js';

let fake: FakeDiscord;
let temp: ReturnType<typeof makeTempHome>;
let services: ToolServices;

beforeEach(async () => {
  fake = await startFakeDiscord();
  temp = makeTempHome('hermes-dctool-');
  const operations = createDiscordToolOperations({
    rest: createDiscordRest({ apiRoot: fake.apiRoot, token: fake.token }),
    token: fake.token,
  });
  const admin = fake.seed.users.owner.id;
  services = testServices(testConfig(temp.home), {
    discord: { ...operations, isAdmin: (userId) => userId === admin },
  });
});
afterEach(async () => {
  await fake.close();
  temp.cleanup();
  expect(fake.internalErrors).toEqual([]);
});

function ctx(sessionKey: string, userId = fake.seed.users.alice.id): ToolContext {
  return {
    signal: new AbortController().signal,
    sessionKey,
    taskId: 't1',
    cwd: temp.home,
    userId,
    platform: 'discord',
    unattended: false,
    toolCallId: 'c1',
    services,
  };
}

const channelKey = () => `agent:main:discord:group:${fake.seed.channels.general}:${fake.seed.users.alice.id}`;

async function run(args: Record<string, unknown>, context: ToolContext) {
  return discordTool.handler(discordTool.parameters.parse(args), context);
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isHermesError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a failure');
}

describe('discordConversation', () => {
  it('takes the channel, thread or DM from the session key and refuses anything else', () => {
    expect(discordConversation('agent:main:discord:group:100:42', 'discord')).toEqual({
      channelId: '100',
      kind: 'channel',
    });
    expect(discordConversation('agent:main:discord:thread:100:300', 'discord')).toEqual({
      channelId: '300',
      kind: 'thread',
    });
    expect(discordConversation('agent:main:discord:dm:77', undefined)).toEqual({
      channelId: '77',
      kind: 'dm',
    });
    for (const key of [
      'agent:main:telegram:dm:77',
      'agent:main:discord:thread:100',
      'agent:main:discord:dm:../x',
      'nope',
    ]) {
      expect(() => discordConversation(key, 'discord')).toThrow(/only in a Discord conversation/);
    }
  });
});

describe('the discord tool (against the fake Discord REST API)', () => {
  it('reads the latest messages of the current conversation, oldest first', async () => {
    const { general } = fake.seed.channels;
    const { alice, bob } = fake.seed.users;
    fake.say(general, { authorId: alice.id, content: 'first' });
    fake.say(general, { authorId: bob.id, content: 'second' });
    fake.say(fake.seed.channels.random, { authorId: bob.id, content: 'elsewhere' });
    const result = (await run({ action: 'read', limit: 5 }, ctx(channelKey()))) as {
      messages: { text: string; author: string }[];
    };
    expect(result.messages.map((m) => [m.author, m.text])).toEqual([
      ['Alice', 'first'],
      ['Bob', 'second'],
    ]);
  });

  it('reacts, pins and opens threads in the current conversation only', async () => {
    const { general } = fake.seed.channels;
    const message = fake.say(general, { authorId: fake.seed.users.alice.id, content: 'ship it?' });
    await run({ action: 'react', message_id: message.id, emoji: '👍' }, ctx(channelKey()));
    expect(fake.message(message.id)?.reactions.get('👍')?.has(fake.bot.id)).toBe(true);
    await run({ action: 'pin', message_id: message.id }, ctx(channelKey()));
    expect(fake.message(message.id)?.pinned).toBe(true);
    const thread = (await run(
      { action: 'thread', name: 'Release', message_id: message.id },
      ctx(channelKey()),
    )) as {
      thread_id: string;
    };
    expect(fake.world.channels.get(thread.thread_id)).toMatchObject({ name: 'Release', parentId: general });

    // A message of another channel is not found through this conversation.
    const other = fake.say(fake.seed.channels.random, { authorId: fake.seed.users.alice.id, content: 'x' });
    expect(await failure(run({ action: 'pin', message_id: other.id }, ctx(channelKey())))).toMatchObject({
      code: 'platform_failed',
    });
    expect(fake.message(other.id)?.pinned).toBe(false);
  });

  it('refuses text that is not one emoji, missing ids, and sessions of other platforms', async () => {
    const message = fake.say(fake.seed.channels.general, {
      authorId: fake.seed.users.alice.id,
      content: 'hi',
    });
    expect(
      await failure(run({ action: 'react', message_id: message.id, emoji: 'thumbsup' }, ctx(channelKey()))),
    ).toMatchObject({
      code: 'usage',
    });
    expect(await failure(run({ action: 'pin' }, ctx(channelKey())))).toMatchObject({ message: /message_id/ });
    expect(
      await failure(run({ action: 'read' }, { ...ctx('agent:main:telegram:dm:5'), platform: 'telegram' })),
    ).toMatchObject({
      message: /only in a Discord conversation/,
    });
    expect(discordTool.checkFn?.(testServices(testConfig(temp.home)))).toMatchObject({ ok: false });
  });
});

describe('the discord_admin tool', () => {
  it('is refused to non-admins before anything is asked or changed', async () => {
    const args = discordAdminTool.parameters.parse({ action: 'set_slowmode', seconds: 30 });
    expect(await failure(Promise.resolve(discordAdminTool.handler(args, ctx(channelKey()))))).toMatchObject({
      code: 'admin_only',
    });
    expect(fake.world.channels.get(fake.seed.channels.general)?.rateLimitPerUser).toBe(0);
  });

  it('is unavailable without an approval gate, and never acts ungated', async () => {
    expect(discordAdminTool.checkFn?.(services)).toMatchObject({ ok: false });
    const args = discordAdminTool.parameters.parse({ action: 'set_slowmode', seconds: 30 });
    const owner = fake.seed.users.owner.id;
    expect(
      await failure(Promise.resolve(discordAdminTool.handler(args, ctx(channelKey(), owner)))),
    ).toMatchObject({ code: 'command_denied' });
    expect(fake.world.channels.get(fake.seed.channels.general)?.rateLimitPerUser).toBe(0);
  });

  /** Services with the real approval gate on `yaml` (config.yaml of a fresh home). */
  function gated(yaml: string) {
    writeFileSync(join(temp.home, 'config.yaml'), yaml);
    const config = testConfig(temp.home);
    const gate = createApprovalGate({ config, store: createMemoryApprovalStore(), logger: silentLogger });
    return { ...services, config, approvalGate: gate } satisfies ToolServices;
  }
  const ownerCtx = (withServices: ToolServices) => ({
    ...ctx(channelKey(), fake.seed.users.owner.id),
    services: withServices,
  });
  const admin = (args: Record<string, unknown>, withServices: ToolServices) =>
    Promise.resolve(
      discordAdminTool.handler(discordAdminTool.parameters.parse(args), ownerCtx(withServices)),
    );

  it('asks a human before a moderation action: the turn pauses with the exact target and values', async () => {
    const withGate = gated('approvals:\n  mode: manual\n');
    let paused: unknown;
    try {
      await admin(
        { action: 'timeout', user_id: fake.seed.users.bob.id, minutes: 60, reason: 'spam' },
        withGate,
      );
    } catch (error) {
      paused = error;
    }
    expect(paused).toBeInstanceOf(ToolPause);
    const request = (paused as ToolPause).payload as {
      action: string;
      command: string;
      findings: { tier: string }[];
    };
    expect(request.action).toBe('discord_admin');
    expect(request.command).toContain(`timeout member ${fake.seed.users.bob.id}`);
    expect(request.command).toContain('60 minutes');
    expect(request.findings.map((f) => f.tier)).toEqual(['dangerous']);
    expect(
      fake.world.guild(fake.seed.guildId).members.get(fake.seed.users.bob.id)?.communicationDisabledUntil ??
        null,
    ).toBeNull();
  });

  it('refuses outright what approvals.deny forbids, and acts when approvals are off', async () => {
    const denied = gated("approvals:\n  deny: ['discord_admin timeout *']\n");
    expect(
      await failure(admin({ action: 'timeout', user_id: fake.seed.users.bob.id, minutes: 5 }, denied)),
    ).toMatchObject({ code: 'command_denied', message: /deny rule/ });

    const open = gated('approvals:\n  mode: "off"\n');
    const result = (await admin({ action: 'set_slowmode', seconds: 30, reason: 'heated thread' }, open)) as {
      seconds: number;
    };
    expect(result.seconds).toBe(30);
    expect(fake.world.channels.get(fake.seed.channels.general)?.rateLimitPerUser).toBe(30);
    const patch = fake.callsTo('PATCH /channels/:channel_id').at(-1);
    expect(patch?.reason).toBe('heated thread');
    await admin({ action: 'timeout', user_id: fake.seed.users.bob.id, minutes: 10 }, open);
    expect(
      fake.world.guild(fake.seed.guildId).members.get(fake.seed.users.bob.id)?.communicationDisabledUntil,
    ).toMatch(/T/);
    await admin({ action: 'set_topic', topic: 'Release day' }, open);
    expect(fake.world.channels.get(fake.seed.channels.general)?.topic).toBe('Release day');
  });
});
