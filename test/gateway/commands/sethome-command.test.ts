import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatRef } from '../../../src/platforms/adapter.js';
import { ADMIN, ALICE, BOB, CHAT, type CommandKit, commandKit } from './command-kit.js';

let kit: CommandKit;

beforeEach(async () => {
  kit = await commandKit();
});

afterEach(async () => {
  await kit.close();
});

const GROUP: ChatRef = { chatId: 'g1', chatType: 'group', threadId: '7' };

describe('/sethome', () => {
  it('makes an admin’s group thread the platform’s home channel', async () => {
    expect(await kit.send('/sethome', ADMIN, { chat: GROUP })).toBe(
      '🏠 This chat is now the home channel for test: notifications addressed to "home" (such as webhook results with chat_id: home) arrive here.',
    );
    expect(await kit.store.getHomeChannel('test')).toEqual({
      platform: 'test',
      chatId: 'g1',
      threadId: '7',
      setBy: ADMIN.userId,
      setAt: kit.now(),
    });
    expect(await kit.send('/set-home', ADMIN, { chat: GROUP })).toBe(
      'This chat is already the home channel for test.',
    );
  });

  it('names the chat it replaces to admins, and only says "previous" to others', async () => {
    await kit.send('/sethome', ADMIN, { chat: GROUP });
    expect(await kit.send('/sethome', ADMIN)).toMatch(/ It replaces chat g1, thread 7\.$/);
    const handler = kit.handlerWith({ userCommands: ['sethome'] });
    const reply = await kit.send('/sethome', BOB, { handler, chat: { chatId: 'dm-bob', chatType: 'dm' } });
    expect(reply).toMatch(/ It replaces the previous home channel\.$/);
    expect(reply).not.toContain(CHAT.chatId);
    expect((await kit.store.getHomeChannel('test'))?.chatId).toBe('dm-bob');
  });

  it('is admin-only by default; a user granted it may set their own DM but not a group', async () => {
    expect(await kit.send('/sethome', ALICE)).toBe(
      '/sethome is not available to you here. /help lists what you can use.',
    );
    const handler = kit.handlerWith({ userCommands: ['sethome'] });
    expect(await kit.send('/sethome', ALICE, { handler, chat: GROUP })).toBe(
      'Only admins can make a group chat the home channel. /sethome in a direct message works.',
    );
    expect(await kit.store.getHomeChannel('test')).toBeUndefined();
    expect(await kit.send('/sethome', ALICE, { handler })).toMatch(/^🏠 This chat is now the home channel/);
    expect(await kit.store.getHomeChannel('test')).toMatchObject({ chatId: CHAT.chatId, setBy: 'alice' });
  });

  it('takes no arguments (it never sets another chat)', async () => {
    expect(await kit.send('/sethome -100123', ADMIN)).toBe(
      '/sethome takes no arguments: send it in the chat that should become the home channel.',
    );
    expect(await kit.store.getHomeChannel('test')).toBeUndefined();
  });
});

describe('/whoami shows the home channel', () => {
  it('as not set, this chat, or (to admins only) which chat', async () => {
    expect(await kit.send('/whoami', ADMIN)).toContain(
      'Home channel: not set (/sethome in a chat makes it the home channel)',
    );
    expect(await kit.send('/whoami', ALICE)).toContain('Home channel: not set\n');
    await kit.send('/sethome', ADMIN, { chat: GROUP });
    expect(await kit.send('/whoami', ADMIN, { chat: GROUP })).toContain('Home channel: this chat\n');
    expect(await kit.send('/whoami', ADMIN)).toContain('Home channel: chat g1, thread 7 (set by root)\n');
    expect(await kit.send('/whoami', ALICE)).toContain('Home channel: another chat\n');
    // Another thread of the same group is another chat.
    expect(
      await kit.send('/whoami', ADMIN, { chat: { chatId: 'g1', chatType: 'group', threadId: '8' } }),
    ).toContain('Home channel: chat g1, thread 7');
  });
});
