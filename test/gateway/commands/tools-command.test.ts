import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveSessionTools } from '../../../src/gateway/turn/resolve-session-tools.js';
import { ADMIN, ALICE, type CommandKit, commandKit, SESSION } from './command-kit.js';

let kit: CommandKit;
const onTelegram = { platform: 'telegram' } as const;

beforeEach(async () => {
  kit = await commandKit();
});

afterEach(async () => {
  await kit.close();
});

/** What the turn runner would give the next turn of this chat. */
async function runnerTools(): Promise<string[]> {
  return resolveSessionTools({
    origin: { platform: 'telegram', chatType: 'dm', chatId: 'chat-1', unattended: false },
    session: await kit.store.getOrCreateSession(SESSION),
    config: kit.config,
    toolsets: kit.toolsets,
  });
}

describe('/tools', () => {
  it('lists the default preset and its tools; admins also see what they can change', async () => {
    const user = await kit.send('/tools', ALICE, onTelegram);
    expect(user).toContain('Toolsets: hermes-telegram (default)');
    expect(user).toMatch(/Tools \(15\): .*terminal/);
    expect(user).not.toContain('Available toolsets');
    const admin = await kit.send('/tools', ADMIN, onTelegram);
    expect(admin).toContain('Available toolsets: ');
    expect(admin).toContain('/tools enable <toolset>');
  });

  it('lets an admin disable a toolset inside the preset, enable it again and reset', async () => {
    expect(await kit.send('/tools disable terminal', ADMIN, onTelegram)).toBe(
      'Disabled terminal for this chat, from the next turn on. /tools reset restores the default.',
    );
    let tools = await runnerTools();
    expect(tools).not.toContain('terminal');
    expect(tools).not.toContain('process');
    expect(tools).toContain('read_file');
    expect(await kit.send('/tools disable terminal', ADMIN, onTelegram)).toBe(
      'terminal is not enabled in this chat.',
    );

    expect(await kit.send('/tools enable terminal', ADMIN, onTelegram)).toBe(
      'Enabled terminal for this chat, from the next turn on.',
    );
    tools = await runnerTools();
    expect(tools).toContain('terminal');
    expect(tools).toContain('process');
    expect(await kit.send('/tools enable terminal', ADMIN, onTelegram)).toBe(
      'terminal is already enabled in this chat.',
    );

    expect(await kit.send('/tools reset', ADMIN, onTelegram)).toBe(
      'Tools are back to the default for telegram (hermes-telegram).',
    );
    expect((await kit.store.getOrCreateSession(SESSION)).toolsetOverrides).toBeUndefined();
  });

  it('drops a toolset listed by name without spelling the rest out', async () => {
    await kit.store.updateSession(SESSION, { toolsetOverrides: ['web', 'file'] });
    await kit.send('/tools disable web', ADMIN, onTelegram);
    expect((await kit.store.getOrCreateSession(SESSION)).toolsetOverrides).toEqual(['file']);
    expect(await kit.send('/tools', ADMIN, onTelegram)).toContain('Toolsets: file (chosen for this chat)');
  });

  it('validates toolset names and keeps changes for admins', async () => {
    expect(await kit.send('/tools enable rockets', ADMIN, onTelegram)).toMatch(
      /^Unknown toolset "rockets". Known toolsets: .*terminal/,
    );
    expect(await kit.send('/tools enable all', ADMIN, onTelegram)).toMatch(/^Unknown toolset "all"/);
    expect(await kit.send('/tools enable web', ALICE, onTelegram)).toBe(
      'Only admins can change the tools of a chat. /tools lists them.',
    );
    expect(await kit.send('/tools enable', ADMIN, onTelegram)).toMatch(/^Usage: \/tools/);
    expect(await kit.send('/tools reset now', ADMIN, onTelegram)).toMatch(/^Usage: \/tools/);
    expect((await kit.store.getOrCreateSession(SESSION)).toolsetOverrides).toBeUndefined();
  });

  it('explains a selection that names something unknown', async () => {
    expect(await kit.send('/tools', ALICE, { platform: 'nowhere' })).toBe(
      "This chat's tool selection (hermes-nowhere) names something unknown. An admin can fix it with /tools reset.",
    );
  });
});
