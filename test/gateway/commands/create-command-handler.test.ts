import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allowedCommands } from '../../../src/gateway/commands/command-permissions.js';
import { COMMANDS } from '../../../src/gateway/commands/command-table.js';
import { ADMIN, ALICE, CHAT, type CommandKit, commandKit, SESSION } from './command-kit.js';

let kit: CommandKit;

beforeEach(async () => {
  kit = await commandKit();
});

afterEach(async () => {
  await kit.close();
});

const input = (name: string, args = '', isAdmin = false) => ({
  platform: 'test',
  chat: CHAT,
  sender: isAdmin ? ADMIN : ALICE,
  isAdmin,
  sessionKey: SESSION,
  name,
  args,
});

describe('allowedCommands', () => {
  it('gives non-admins /help, /whoami and the configured commands, never admin-only ones', () => {
    expect(allowedCommands(kit.config.gateway.user_commands, false)).toEqual([
      'help',
      'new',
      'status',
      'stop',
      'model',
      'approve',
      'deny',
      'queue',
      'whoami',
      'usage',
      'tools',
      'cron',
    ]);
    expect(allowedCommands([], false)).toEqual(['help', 'whoami']);
    // Aliases and a leading slash count; prefixes, unknown names and admin-only commands do not.
    expect(allowedCommands(['/reset', 'Q', 's', 'bogus', 'pair', ' yolo '], false)).toEqual([
      'help',
      'new',
      'yolo',
      'queue',
      'whoami',
    ]);
  });

  it('gives admins everything', () => {
    expect(allowedCommands([], true)).toEqual(COMMANDS.map((command) => command.name));
    expect(kit.handler.allowedCommands(true)).toHaveLength(COMMANDS.length);
  });
});

describe('createCommandHandler', () => {
  it('resolves names as typed: aliases, prefixes, unknown and ambiguous ones', async () => {
    expect((await kit.handler.handle(input('WHO'))).replies[0]).toMatch(/^Platform: test/);
    expect(await kit.handler.handle(input('xyzzy'))).toEqual({
      replies: ['Unknown command /xyzzy — try /help'],
    });
    expect(await kit.handler.handle(input('s'))).toEqual({
      replies: ['/s could mean /sethome, /status or /stop — type a few more letters.'],
    });
    expect(await kit.handler.handle({ ...input('zz'), prefix: '!' })).toEqual({
      replies: ['Unknown command !zz — try !help'],
    });
  });

  it('refuses commands the sender may not run, with a pointer to /help', async () => {
    expect(await kit.handler.handle(input('yolo'))).toEqual({
      replies: ['/yolo is not available to you here. /help lists what you can use.'],
    });
    expect(await kit.gate.isSessionYolo(SESSION)).toBe(false);
    expect(await kit.handler.handle(input('pair', 'ABCD2345'))).toEqual({
      replies: ['Only admins can use /pair.'],
    });
    expect((await kit.handler.handle(input('yolo', '', true))).replies[0]).toMatch(/^⚡ YOLO is ON/);
  });

  it('follows gateway.user_commands from the config', async () => {
    const config = { ...kit.config, gateway: { ...kit.config.gateway, user_commands: ['status'] } };
    const handler = kit.handlerWith({ config });
    expect((await handler.handle(input('model'))).replies[0]).toBe(
      '/model is not available to you here. /help lists what you can use.',
    );
    expect((await handler.handle(input('status'))).replies[0]).toMatch(/^Session: /);
  });

  it('answers a failing command with a short apology instead of throwing', async () => {
    const broken = kit.handlerWith({
      store: {
        ...kit.store,
        getOrCreateSession: async () => {
          throw new Error('disk on fire');
        },
      },
    });
    expect(await broken.handle(input('status'))).toEqual({
      replies: ['Sorry — /status failed on my side. Please try again in a moment.'],
    });
  });
});
