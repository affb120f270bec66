import { GatewayIntentBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { InboundEvent, InboundResult } from '../../../src/platforms/adapter.js';
import { startFakeDiscord } from '../../fakes/fake-discord.js';
import { type DiscordSetup, poll, recordingSink, setupDiscord } from './discord-kit.js';

const SEND = 'POST /channels/:channel_id/messages';

describe('discord adapter (real discord.js against the fake Discord)', () => {
  let setup: DiscordSetup | undefined;
  afterEach(async () => {
    const problems = setup?.fake.internalErrors ?? [];
    await setup?.close();
    setup = undefined;
    expect(problems).toEqual([]);
  });

  async function started(options: Parameters<typeof setupDiscord>[0] = {}) {
    setup = await setupDiscord(options);
    const recorder = recordingSink();
    await setup.adapter.start(recorder.sink);
    return { ...setup, recorder };
  }

  it('logs in to READY with the four intents it needs and reports healthy', async () => {
    const { fake, adapter } = await started();
    expect(await adapter.health()).toEqual({ ok: true });
    const identify = fake.gateway.identifies.at(-1);
    expect(identify?.accepted).toBe(true);
    expect(identify?.intents).toBe(
      GatewayIntentBits.Guilds |
        GatewayIntentBits.GuildMessages |
        GatewayIntentBits.MessageContent |
        GatewayIntentBits.DirectMessages,
    );
  });

  it('hands a DM over as an addressed dm message', async () => {
    const { fake, recorder } = await started();
    const { alice } = fake.seed.users;
    const sent = fake.dm({ authorId: alice.id, content: 'hello bot' });
    await poll(() => recorder.events.length > 0, 'the DM');
    expect(recorder.events[0]).toMatchObject({
      kind: 'message',
      platform: 'discord',
      eventId: sent.id,
      messageId: sent.id,
      text: 'hello bot',
      addressed: true,
      chat: { chatId: sent.channelId, chatType: 'dm' },
      sender: { userId: alice.id, userName: 'alice', isBot: false },
    });
  });

  it('takes a message whose content is null (as Discord may send) without throwing into discord.js', async () => {
    const { fake, recorder } = await started();
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const { alice } = fake.seed.users;
      fake.dm({ authorId: alice.id, content: 'first' });
      await poll(() => recorder.events.length > 0, 'the first DM');
      const payload = fake.gateway.dispatches.filter((d) => d.t === 'MESSAGE_CREATE').at(-1)?.d as Record<
        string,
        unknown
      >;
      fake.dispatch('MESSAGE_CREATE', { ...payload, id: '1300000000000000001', content: null });
      const after = fake.dm({ authorId: alice.id, content: 'still here' });
      await poll(() => recorder.events.some((event) => event.eventId === after.id), 'the DM after it');
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('in a server: ignores unaddressed messages, threads a mention, and takes a reply to the bot', async () => {
    const { fake, adapter, recorder } = await started();
    const { general } = fake.seed.channels;
    const { alice } = fake.seed.users;
    fake.say(general, { authorId: alice.id, content: 'just chatting' });
    const mention = fake.say(general, {
      authorId: alice.id,
      content: `<@${fake.bot.id}> how are the builds?`,
    });
    await poll(() => recorder.events.length > 0, 'the mention');
    // The mention opened a thread named after it, and the conversation moved there.
    const thread = fake.world.channels.get(mention.id);
    expect(thread?.name).toBe('how are the builds?');
    expect(recorder.events).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({
      text: 'how are the builds?',
      chat: { chatId: general, threadId: mention.id, chatType: 'thread' },
      sender: { roles: [fake.seed.roles.member] },
    });
    // The answer goes into the thread (the message it came from is in the parent: no reference).
    const answer = await adapter.sendText(
      { chatId: general, threadId: mention.id },
      { text: 'All green.', replyToMessageId: mention.id },
    );
    expect(fake.message(answer.messageId)?.channelId).toBe(mention.id);

    const ours = await adapter.sendText({ chatId: general }, { text: 'A note from the bot.' });
    const reply = fake.say(general, { authorId: alice.id, content: 'thanks!', replyTo: ours.messageId });
    await poll(() => recorder.events.length > 1, 'the reply');
    expect(recorder.events[1]).toMatchObject({
      eventId: reply.id,
      replyToMessageId: ours.messageId,
      chat: { chatId: general, chatType: 'group' },
    });
    expect(fake.world.channels.get(reply.id)).toBeUndefined();
  });

  it('keeps threads as their own chats: a thread message carries parent and thread', async () => {
    const { fake, recorder } = await started({ env: { DISCORD_AUTO_THREAD: 'false' } });
    const { general, thread } = fake.seed.channels;
    fake.say(thread, { authorId: fake.seed.users.owner.id, content: `<@${fake.bot.id}> in the thread` });
    const plain = fake.say(general, {
      authorId: fake.seed.users.owner.id,
      content: `<@${fake.bot.id}> in general`,
    });
    await poll(() => recorder.events.length === 2, 'both messages');
    expect(recorder.events.map((e) => e.chat)).toEqual([
      { chatId: general, threadId: thread, chatType: 'thread' },
      { chatId: general, chatType: 'group' },
    ]);
    expect(fake.world.channels.get(plain.id)).toBeUndefined();
  });

  it('reacts 👀 on a taken message and ✅ / ❌ when its turn ends', async () => {
    const { fake, adapter, recorder } = await started();
    const { alice } = fake.seed.users;
    const first = fake.dm({ authorId: alice.id, content: 'one' });
    const second = fake.dm({ authorId: alice.id, content: 'two' });
    await poll(() => fake.message(second.id)?.reactions.has('👀'), 'the eyes');
    expect([...(fake.message(first.id)?.reactions.keys() ?? [])]).toEqual(['👀']);
    const chat = recorder.events[0]?.chat ?? { chatId: '' };
    await adapter.markOutcome(chat, first.id, 'done');
    await adapter.markOutcome(chat, second.id, 'failed');
    expect([...(fake.message(first.id)?.reactions.keys() ?? [])]).toEqual(['✅']);
    expect([...(fake.message(second.id)?.reactions.keys() ?? [])]).toEqual(['❌']);
  });

  it('sends a part once whatever the retries: the idempotency key becomes an enforced nonce', async () => {
    const { fake, adapter } = await started();
    const dm = fake.dmChannel(fake.seed.users.alice.id);
    const first = await adapter.sendText({ chatId: dm.id }, { text: 'part 1', idempotencyKey: 'turn:t1:0' });
    const again = await adapter.sendText({ chatId: dm.id }, { text: 'part 1', idempotencyKey: 'turn:t1:0' });
    expect(again.messageId).toBe(first.messageId);
    expect(fake.messages(dm.id).filter((m) => m.content === 'part 1')).toHaveLength(1);
    for (const call of fake.callsTo(SEND)) expect(call.body).toMatchObject({ enforce_nonce: true });
  });

  it('never pings: mentions in what the bot writes are not resolved', async () => {
    const { fake, adapter } = await started();
    const { general } = fake.seed.channels;
    const sent = await adapter.sendText(
      { chatId: general },
      { text: `@everyone and <@${fake.seed.users.bob.id}>` },
    );
    expect(fake.message(sent.messageId)).toMatchObject({ mentions: [], mentionEveryone: false });
  });

  it('retries a message the gateway could not take, in order, and tells the user when it gives up', async () => {
    const { fake, recorder, attempts } = await started({ yaml: '    max_event_failures: 2' });
    const { alice } = fake.seed.users;
    recorder.answerWith(async (event: InboundEvent): Promise<InboundResult> => {
      if (event.kind === 'message' && event.text === 'doomed') throw new Error('store is down');
      return { status: 'accepted' };
    });
    const doomed = fake.dm({ authorId: alice.id, content: 'doomed' });
    const after = fake.dm({ authorId: alice.id, content: 'after' });
    await poll(() => recorder.events.some((e) => e.eventId === after.id), 'the next message');
    expect(recorder.events.map((e) => e.eventId)).toEqual([doomed.id, doomed.id, after.id]);
    expect(attempts.filter((a) => a.eventId === doomed.id).map((a) => a.outcome)).toEqual([
      'failed',
      'gave_up',
    ]);
    const notice = fake.messages(doomed.channelId).find((m) => m.authorId === fake.bot.id);
    expect(notice?.content).toMatch(/could not take this message/);
    expect(notice?.replyTo?.messageId).toBe(doomed.id);
  });

  it('fetches attachments within the cap into the inbox (shared inbound-file part); images also go to the model', async () => {
    const { fake, recorder, home } = await started({ yaml: '    download_max_bytes: 1000' });
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    fake.dm({
      authorId: fake.seed.users.alice.id,
      content: 'look',
      attachments: [
        { filename: 'shot.png', bytes: png, contentType: 'image/png' },
        { filename: '../../etc/notes.txt', bytes: Buffer.from('hello'), contentType: 'text/plain' },
        { filename: 'huge.bin', bytes: Buffer.alloc(5000), contentType: 'application/octet-stream' },
      ],
    });
    await poll(() => recorder.events.length > 0, 'the message');
    const event = recorder.events[0];
    if (event?.kind !== 'message') throw new Error('expected a message');
    expect(event.text).toMatch(new RegExp(`^look\\n\\n\\[photo saved at ${home}/inbox/discord/`));
    expect(event.text).toMatch(/\[file saved at [^\]]*notes\.txt\]/);
    expect(event.text).not.toMatch(/\.\.\//);
    expect(event.text).toMatch(/huge\.bin" not downloaded: 5 KB is over the 1000 bytes limit/);
    expect(event.images).toEqual([{ url: `data:image/png;base64,${png.toString('base64')}` }]);
  });

  it('finds the allowed roles of someone writing a DM in the servers that define them', async () => {
    const fake = await startFakeDiscord({ heartbeatIntervalMs: 250 });
    try {
      const { member } = fake.seed.roles;
      const { recorder } = await started({ fake, env: { DISCORD_ALLOWED_ROLES: member } });
      const fromAlice = fake.dm({ authorId: fake.seed.users.alice.id, content: 'hi' });
      const fromBob = fake.dm({ authorId: fake.seed.users.bob.id, content: 'hi' });
      await poll(() => recorder.events.length === 2, 'both DMs');
      expect(recorder.events.find((e) => e.eventId === fromAlice.id)?.sender.roles).toEqual([member]);
      expect(recorder.events.find((e) => e.eventId === fromBob.id)?.sender.roles).toBeUndefined();
    } finally {
      await setup?.close();
      setup = undefined;
      await fake.close();
    }
  });
});
