import { describe, expect, it } from 'vitest';
import { buildSessionKey } from '../../../src/gateway/session-key.js';
import {
  type TelegramUpdate,
  telegramUpdateSchema,
} from '../../../src/platforms/telegram/telegram-update.js';
import { translateUpdate } from '../../../src/platforms/telegram/translate-update.js';
import { entitiesOf } from '../../fakes/fake-telegram/fake-updates.js';

const BOT = { id: 99, username: 'hermes_bot' };
const ANN = { id: 42, is_bot: false, first_name: 'Ann', username: 'ann' };

function message(text: string, extra: Record<string, unknown> = {}, chat = { id: 42, type: 'private' }) {
  return telegramUpdateSchema.parse({
    update_id: 1,
    message: { message_id: 10, date: 0, chat, from: ANN, text, entities: entitiesOf(text), ...extra },
  });
}
const group = { id: -100999, type: 'supergroup' };

function event(update: TelegramUpdate) {
  const translated = translateUpdate(update, BOT, 1234);
  if (translated.kind !== 'event') throw new Error(`skipped: ${translated.reason}`);
  return translated.event;
}

describe('translateUpdate', () => {
  it('turns a DM into an addressed message with the update id as event id', () => {
    expect(event(message('hello'))).toEqual({
      platform: 'telegram',
      kind: 'message',
      eventId: '1',
      messageId: '10',
      chat: { chatId: '42', chatType: 'dm' },
      sender: { userId: '42', userName: 'ann', isBot: false },
      receivedAt: 1234,
      text: 'hello',
      addressed: true,
    });
  });

  it('addresses group messages only by mention, reply to the bot, or command', () => {
    expect(event(message('lunch?', {}, group))).toMatchObject({ addressed: false });
    expect(event(message('@hermes_bot lunch?', {}, group))).toMatchObject({
      addressed: true,
      text: 'lunch?',
    });
    expect(event(message('ask @HERMES_BOT', {}, group))).toMatchObject({ addressed: true });
    expect(event(message('hi @someone_else', {}, group))).toMatchObject({ addressed: false });
    const reply = { reply_to_message: { message_id: 5, from: { id: 99, is_bot: true, first_name: 'H' } } };
    expect(event(message('and?', reply, group))).toMatchObject({ addressed: true, replyToMessageId: '5' });
    const toOther = { reply_to_message: { message_id: 6, from: { id: 7, first_name: 'Bob' } } };
    expect(event(message('and?', toOther, group))).toMatchObject({ addressed: false });
  });

  it('parses commands, and drops commands meant for another bot', () => {
    expect(event(message('/approve@hermes_bot session', {}, group))).toMatchObject({
      kind: 'command',
      name: 'approve',
      args: 'session',
      addressed: true,
    });
    expect(event(message('/Status'))).toMatchObject({ kind: 'command', name: 'status', args: '' });
    expect(translateUpdate(message('/status@other_bot', {}, group), BOT, 0)).toMatchObject({
      kind: 'skip',
      reason: 'command for another bot',
    });
  });

  it('keys a forum topic as a thread of its group (shared session)', () => {
    const topic = event(message('@hermes_bot hi', { message_thread_id: 1, is_topic_message: true }, group));
    expect(topic.chat).toEqual({ chatId: '-100999', chatType: 'group', threadId: '1' });
    const key = buildSessionKey({
      platform: topic.platform,
      chatType: topic.chat.chatType,
      chatId: topic.chat.chatId,
      threadId: topic.chat.threadId,
      userId: topic.sender.userId,
    });
    expect(key).toBe('agent:main:telegram:group:-100999:1');
    // A reply thread in a plain supergroup is not a topic.
    expect(event(message('x', { message_thread_id: 3 }, group)).chat.threadId).toBeUndefined();
  });

  it('skips the bot’s own messages, channel posts and empty messages', () => {
    const own = telegramUpdateSchema.parse({
      update_id: 2,
      message: { message_id: 1, chat: group, from: { id: 99, is_bot: true, first_name: 'H' }, text: 'x' },
    });
    expect(translateUpdate(own, BOT, 0)).toMatchObject({ kind: 'skip', reason: 'own message' });
    expect(translateUpdate(message('x', {}, { id: -5, type: 'channel' }), BOT, 0).kind).toBe('skip');
    expect(translateUpdate(message(''), BOT, 0).kind).toBe('skip');
    expect(translateUpdate(telegramUpdateSchema.parse({ update_id: 3 }), BOT, 0).kind).toBe('skip');
  });

  it('turns a button press into an action carrying the callback query id', () => {
    const update = telegramUpdateSchema.parse({
      update_id: 4,
      callback_query: {
        id: 'cq1',
        from: ANN,
        data: 'ea:once:abcd1234',
        message: { message_id: 77, chat: group, message_thread_id: 9, is_topic_message: true },
      },
    });
    expect(event(update)).toMatchObject({
      kind: 'action',
      eventId: '4',
      messageId: '77',
      data: 'ea:once:abcd1234',
      chat: { chatId: '-100999', chatType: 'group', threadId: '9' },
      platformOptions: { callbackQueryId: 'cq1' },
    });
    const noMessage = telegramUpdateSchema.parse({ update_id: 5, callback_query: { id: 'cq2', from: ANN } });
    expect(translateUpdate(noMessage, BOT, 0)).toMatchObject({ kind: 'skip', callbackQueryId: 'cq2' });
  });

  it('reads captions and notes photos and documents as attachments', () => {
    const photo = telegramUpdateSchema.parse({
      update_id: 6,
      message: {
        message_id: 1,
        chat: { id: 42, type: 'private' },
        from: ANN,
        caption: 'what is this?',
        photo: [
          { file_id: 's', file_unique_id: 's1' },
          { file_id: 'L', file_unique_id: 'L1', file_size: 900 },
        ],
      },
    });
    expect(translateUpdate(photo, BOT, 0)).toMatchObject({
      kind: 'event',
      event: { text: 'what is this?' },
      attachment: { kind: 'photo', fileId: 'L', size: 900 },
    });
  });
});
