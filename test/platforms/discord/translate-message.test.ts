import { describe, expect, it } from 'vitest';
import { discordSettings } from '../../../src/platforms/discord/discord-settings.js';
import {
  type DiscordMessageView,
  threadNameOf,
  translateMessage,
  withoutBotMention,
} from '../../../src/platforms/discord/translate-message.js';
import { makeTempHome, testConfig } from '../../helpers/test-config.js';

const BOT = { id: '900' };

function settingsWith(env: Record<string, string> = {}) {
  const temp = makeTempHome();
  try {
    return discordSettings(testConfig(temp.home, env));
  } finally {
    temp.cleanup();
  }
}

function view(overrides: Partial<DiscordMessageView> = {}): DiscordMessageView {
  return {
    id: '5000',
    channelId: '100',
    guildId: '1',
    parentId: undefined,
    isThread: false,
    threadOwnerId: undefined,
    canHoldThreads: true,
    authorId: '42',
    authorName: 'alice',
    authorIsBot: false,
    isUserMessage: true,
    content: 'hello',
    mentionsBot: false,
    replyToId: undefined,
    repliedToBot: false,
    roles: [],
    attachments: [],
    ...overrides,
  };
}

const defaults = settingsWith();

describe('translateMessage', () => {
  it('takes every DM, addressed, as a dm chat', () => {
    const result = translateMessage(view({ guildId: undefined, channelId: '77' }), BOT, defaults, 1);
    expect(result).toMatchObject({
      kind: 'event',
      lane: '77',
      event: { kind: 'message', text: 'hello', addressed: true, chat: { chatId: '77', chatType: 'dm' } },
    });
  });

  it('skips server messages that do not mention or reply to the bot', () => {
    expect(translateMessage(view(), BOT, defaults, 1)).toEqual({ kind: 'skip', reason: 'not addressed' });
  });

  it('takes a mention, strips it from the text and asks for a thread named after the message', () => {
    const result = translateMessage(
      view({ content: '<@900>, what is the build status?', mentionsBot: true }),
      BOT,
      defaults,
      1,
    );
    expect(result).toMatchObject({
      kind: 'event',
      openThread: { name: 'what is the build status?' },
      event: {
        text: 'what is the build status?',
        addressed: true,
        chat: { chatId: '100', chatType: 'group' },
      },
    });
  });

  it('takes a reply to the bot without a mention, with no thread', () => {
    const result = translateMessage(view({ replyToId: '4000', repliedToBot: true }), BOT, defaults, 1);
    expect(result).toMatchObject({ kind: 'event', event: { replyToMessageId: '4000', addressed: true } });
    expect(result).not.toHaveProperty('openThread');
  });

  it('answers everything in free-response channels (and their threads) without opening threads', () => {
    const settings = settingsWith({ DISCORD_FREE_RESPONSE_CHANNELS: '100' });
    expect(translateMessage(view(), BOT, settings, 1)).toMatchObject({
      kind: 'event',
      event: { addressed: true },
    });
    const inThread = view({ channelId: '300', parentId: '100', isThread: true });
    expect(translateMessage(inThread, BOT, settings, 1)).toMatchObject({
      kind: 'event',
      lane: '300',
      event: { chat: { chatId: '100', threadId: '300', chatType: 'thread' } },
    });
    expect(translateMessage(view({ mentionsBot: true }), BOT, settings, 1)).not.toHaveProperty('openThread');
  });

  it('answers without a mention in threads the bot started, and everywhere with require_mention off', () => {
    const own = view({ channelId: '300', parentId: '100', isThread: true, threadOwnerId: '900' });
    expect(translateMessage(own, BOT, defaults, 1)).toMatchObject({ kind: 'event' });
    const other = view({ channelId: '300', parentId: '100', isThread: true, threadOwnerId: '42' });
    expect(translateMessage(other, BOT, defaults, 1)).toMatchObject({ kind: 'skip' });
    expect(
      translateMessage(view(), BOT, settingsWith({ DISCORD_REQUIRE_MENTION: 'false' }), 1),
    ).toMatchObject({
      kind: 'event',
    });
  });

  it('skips ignored channels and channels outside allowed_channels, threads by their parent, never DMs', () => {
    const ignoring = settingsWith({ DISCORD_IGNORED_CHANNELS: '100' });
    const mention = { mentionsBot: true };
    expect(translateMessage(view(mention), BOT, ignoring, 1)).toEqual({
      kind: 'skip',
      reason: 'ignored channel',
    });
    const threadOfIgnored = view({ ...mention, channelId: '300', parentId: '100', isThread: true });
    expect(translateMessage(threadOfIgnored, BOT, ignoring, 1)).toMatchObject({ kind: 'skip' });
    const only = settingsWith({ DISCORD_ALLOWED_CHANNELS: '200' });
    expect(translateMessage(view(mention), BOT, only, 1)).toMatchObject({ kind: 'skip' });
    expect(translateMessage(view({ ...mention, channelId: '200' }), BOT, only, 1)).toMatchObject({
      kind: 'event',
    });
    expect(translateMessage(view({ guildId: undefined }), BOT, only, 1)).toMatchObject({ kind: 'event' });
  });

  it('skips its own messages, system notices, and bots as allow_bots says', () => {
    expect(translateMessage(view({ authorId: '900', mentionsBot: true }), BOT, defaults, 1)).toMatchObject({
      reason: 'own message',
    });
    expect(
      translateMessage(view({ isUserMessage: false, mentionsBot: true }), BOT, defaults, 1),
    ).toMatchObject({
      reason: 'system message',
    });
    const bot = view({ authorIsBot: true, mentionsBot: true });
    expect(translateMessage(bot, BOT, defaults, 1)).toMatchObject({ kind: 'skip' });
    const mentions = settingsWith({ DISCORD_ALLOW_BOTS: 'mentions' });
    expect(translateMessage(bot, BOT, mentions, 1)).toMatchObject({
      kind: 'event',
      event: { sender: { isBot: true } },
    });
    expect(
      translateMessage({ ...bot, mentionsBot: false, repliedToBot: true }, BOT, mentions, 1),
    ).toMatchObject({
      kind: 'skip',
    });
  });

  it('parses commands after a mention, in DMs bare, and carries the sender roles', () => {
    const command = translateMessage(
      view({ content: '<@!900> /Approve session', mentionsBot: true, roles: ['7', '8'] }),
      BOT,
      defaults,
      1,
    );
    expect(command).toMatchObject({
      kind: 'event',
      event: { kind: 'command', name: 'approve', args: 'session', sender: { roles: ['7', '8'] } },
    });
    expect(command).not.toHaveProperty('openThread');
    expect(
      translateMessage(view({ guildId: undefined, content: '/status' }), BOT, defaults, 1),
    ).toMatchObject({
      event: { kind: 'command', name: 'status', args: '' },
    });
    // A bare command in a server channel is for whichever bot is addressed; not us.
    expect(translateMessage(view({ content: '/status' }), BOT, defaults, 1)).toMatchObject({ kind: 'skip' });
  });

  it('skips a message with nothing to read but keeps one with only attachments', () => {
    expect(translateMessage(view({ guildId: undefined, content: '  ' }), BOT, defaults, 1)).toMatchObject({
      reason: 'nothing to read',
    });
    const file = {
      id: '1',
      url: 'https://cdn.example/x.png',
      name: 'x.png',
      contentType: 'image/png',
      size: 3,
    };
    expect(
      translateMessage(view({ guildId: undefined, content: '', attachments: [file] }), BOT, defaults, 1),
    ).toMatchObject({ kind: 'event', attachments: [file] });
  });
});

describe('mentions and thread names', () => {
  it('removes every mention of the bot and only of the bot', () => {
    expect(withoutBotMention('<@900> hi <@!900> and <@42>', '900')).toBe('hi and <@42>');
  });

  it('names a thread after the first line, 80 characters at most', () => {
    expect(threadNameOf('\n  first line \nsecond', 'ann')).toBe('first line');
    expect([...threadNameOf('é'.repeat(200), 'ann')]).toHaveLength(80);
    expect(threadNameOf('', 'ann')).toBe('Chat with ann');
  });
});
