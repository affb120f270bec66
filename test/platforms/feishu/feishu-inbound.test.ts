import { afterEach, describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../../src/platforms/adapter.js';
import { type FakeLark, startFakeLark } from '../../fakes/fake-lark.js';
import { deferred, recordingSink } from '../telegram/telegram-kit.js';
import { type FeishuSetup, fakeOptions, setupFeishu } from './feishu-kit.js';

/** What reaches the gateway from Feishu messages: DMs, group rules, content, dedupe and order. */
describe('feishu inbound messages', () => {
  const open: FeishuSetup[] = [];
  const fakes: FakeLark[] = [];
  afterEach(async () => {
    for (const setup of open.splice(0)) await setup.close();
    for (const fake of fakes.splice(0)) await fake.close();
  });

  /** A fake with Ann, Bob and a group, then the adapter configured with `yaml(ann, bob)`. */
  async function started(
    yaml: (ids: { ann: string; bob: string }) => string = () => '    group_policy: open',
  ) {
    const lark = await startFakeLark(fakeOptions('webhook'));
    fakes.push(lark);
    const ann = lark.user('Ann');
    const bob = lark.user('Bob');
    const team = lark.group('team', [ann, bob]);
    const setup = await setupFeishu('webhook', { lark, yaml: yaml({ ann: ann.openId, bob: bob.userId }) });
    open.push(setup);
    const recorder = recordingSink();
    await setup.adapter.start(recorder.sink);
    return { setup, fake: lark, recorder, ann, bob, team };
  }

  it('answers DMs always; in groups only @mentions of the bot, with the mention removed and others named', async () => {
    const { setup, fake, recorder, ann, bob, team } = await started();
    await setup.deliver(fake.userSends({ from: ann, chat: fake.dm(ann), text: 'in private' }).event);
    const unmentioned = await setup.deliver(fake.userSends({ from: ann, chat: team, text: 'chatter' }).event);
    expect(unmentioned.ack).toBe('acknowledged');
    await setup.deliver(
      fake.userSends({ from: ann, chat: team, text: '@_user_1 ask @_user_2 please', mentions: ['bot', bob] })
        .event,
    );
    await setup.deliver(
      fake.userSends({ from: ann, chat: team, text: '@_user_1 hi', mentions: [bob] }).event,
    );
    expect(recorder.events.map((e) => [e.kind, e.chat.chatType, (e as InboundMessage).text])).toEqual([
      ['message', 'dm', 'in private'],
      ['message', 'group', 'ask @Bob please'],
    ]);
    expect(recorder.events[1]).toMatchObject({ addressed: true, sender: { userId: ann.openId } });
  });

  it('group_policy allowlist takes only listed senders (open_id or user_id); disabled takes none', async () => {
    const listed = await started(({ ann, bob }) => `    allowed_users: [${ann}, ${bob}]`);
    const { fake, team, ann, bob } = listed;
    const carl = fake.user('Carl');
    team.members.add(carl.openId);
    for (const who of [ann, bob, carl]) {
      await listed.setup.deliver(
        fake.userSends({ from: who, chat: team, text: '@_user_1 hi', mentions: ['bot'] }).event,
      );
    }
    // Bob is listed by user_id, so the gateway knows him by it.
    expect(listed.recorder.events.map((e) => e.sender.userId)).toEqual([ann.openId, bob.userId]);

    const off = await started(() => '    group_policy: disabled');
    await off.setup.deliver(
      off.fake.userSends({ from: off.ann, chat: off.team, text: '@_user_1 hi', mentions: ['bot'] }).event,
    );
    await off.setup.deliver(
      off.fake.userSends({ from: off.ann, chat: off.fake.dm(off.ann), text: 'dm' }).event,
    );
    expect(off.recorder.events.map((e) => e.chat.chatType)).toEqual(['dm']);
  });

  it('require_mention off takes every group message; bots only as allow_bots says', async () => {
    const { setup, fake, recorder, ann, team } = await started(
      () => '    group_policy: open\n    require_mention: false\n    allow_bots: mentions',
    );
    const robot = fake.user('CI bot', { isBot: true });
    team.members.add(robot.openId);
    await setup.deliver(fake.userSends({ from: ann, chat: team, text: 'no mention' }).event);
    await setup.deliver(fake.userSends({ from: robot, chat: team, text: 'build done' }).event);
    await setup.deliver(
      fake.userSends({ from: robot, chat: team, text: '@_user_1 deploy?', mentions: ['bot'] }).event,
    );
    expect(recorder.events.map((e) => [(e as InboundMessage).text, e.sender.isBot ?? false])).toEqual([
      ['no mention', false],
      ['deploy?', true],
    ]);
  });

  it('reads rich-text posts as text, and commands', async () => {
    const { setup, fake, recorder, ann } = await started();
    const dm = fake.dm(ann);
    await setup.deliver(
      fake.userSends({
        from: ann,
        chat: dm,
        post: {
          title: 'Plan',
          content: [
            [
              { tag: 'text', text: 'see ' },
              { tag: 'a', text: 'docs', href: 'https://example.com/d' },
            ],
            [{ tag: 'code_block', language: 'Bash', text: 'ls -la' }],
          ],
        },
      }).event,
    );
    await setup.deliver(fake.userSends({ from: ann, chat: dm, text: '/status now' }).event);
    expect(recorder.events[0]).toMatchObject({
      kind: 'message',
      text: 'Plan\nsee [docs](https://example.com/d)\n```bash\nls -la\n```',
    });
    expect(recorder.events[1]).toMatchObject({ kind: 'command', name: 'status', args: 'now' });
  });

  it('dedupes a redelivered event and the same message in another event', async () => {
    const { setup, fake, recorder, ann } = await started();
    const { event } = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'once' });
    expect((await setup.deliver(event)).ack).toBe('acknowledged');
    expect((await setup.deliver(event)).ack).toBe('acknowledged');
    const again = { ...event, header: { ...event.header, event_id: `${event.header.event_id}x` } };
    expect((await setup.deliver(again)).ack).toBe('acknowledged');
    expect(recorder.events).toHaveLength(1);
  });

  it('keeps the order within a chat while other chats go on', async () => {
    const { setup, fake, recorder, ann, bob } = await started();
    const gate = deferred();
    recorder.answerWith(async (event) => {
      if ((event as InboundMessage).text === 'first') await gate.promise;
      return { status: 'accepted' };
    });
    const first = setup.deliver(fake.userSends({ from: ann, chat: fake.dm(ann), text: 'first' }).event);
    await new Promise((r) => setTimeout(r, 100));
    const second = setup.deliver(fake.userSends({ from: ann, chat: fake.dm(ann), text: 'second' }).event);
    await setup.deliver(fake.userSends({ from: bob, chat: fake.dm(bob), text: 'other chat' }).event);
    await new Promise((r) => setTimeout(r, 100));
    expect(recorder.events.map((e) => (e as InboundMessage).text)).toEqual(['first', 'other chat']);
    gate.resolve();
    await Promise.all([first, second]);
    expect(recorder.events.map((e) => (e as InboundMessage).text)).toEqual(['first', 'other chat', 'second']);
  });

  it('downloads an image within the cap and names one over it', async () => {
    const { setup, fake, recorder, ann } = await started(() => '    download_max_bytes: 1000');
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    await setup.deliver(
      fake.userSends({ from: ann, chat: fake.dm(ann), image: { bytes: png, contentType: 'image/png' } })
        .event,
    );
    await setup.deliver(fake.userSends({ from: ann, chat: fake.dm(ann), image: { size: 5000 } }).event);
    const [small, big] = recorder.events as InboundMessage[];
    expect(small?.text).toMatch(/photo saved at .*\.png/);
    expect(small?.images?.[0]?.url).toBe(`data:image/png;base64,${png.toString('base64')}`);
    expect(big?.text).toMatch(/not downloaded: .* over the 1000 bytes limit/);
    expect(big?.images ?? []).toEqual([]);
  });
});
