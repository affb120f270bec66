import { afterEach, describe, expect, it } from 'vitest';
import type { InboundEvent } from '../../../src/platforms/adapter.js';
import { sendUuid } from '../../../src/platforms/feishu/feishu-outbound.js';
import { recordingSink } from '../telegram/telegram-kit.js';
import { type FeishuMode, type FeishuSetup, setupFeishu } from './feishu-kit.js';

/** Sends, idempotency, prompt cards and how a click is answered with the updated card. */
describe('feishu outbound and card callbacks', () => {
  const open: FeishuSetup[] = [];
  afterEach(async () => {
    for (const setup of open.splice(0)) await setup.close();
  });

  async function started(mode: FeishuMode = 'webhook') {
    const setup = await setupFeishu(mode);
    open.push(setup);
    const recorder = recordingSink();
    await setup.adapter.start(recorder.sink);
    const ann = setup.fake.user('Ann');
    const dm = setup.fake.dm(ann);
    return { setup, fake: setup.fake, adapter: setup.adapter, recorder, ann, to: { chatId: dm.chatId } };
  }

  it('a retried send with the same idempotency key is one message, even when the first answer was lost', async () => {
    const { fake, adapter, to } = await started();
    const key = `receipt:${'k'.repeat(80)}`;
    const first = await adapter.sendText(to, { text: 'part 1', idempotencyKey: key });
    const again = await adapter.sendText(to, { text: 'part 1', idempotencyKey: key });
    expect(again.messageId).toBe(first.messageId);
    fake.failNext('im.message.create', { drop: 'after' });
    const lostKey = 'receipt:lost';
    await expect(adapter.sendText(to, { text: 'part 2', idempotencyKey: lostKey })).rejects.toMatchObject({
      code: 'unavailable',
      maybeDelivered: true,
    });
    await adapter.sendText(to, { text: 'part 2', idempotencyKey: lostKey });
    expect(fake.botMessages(to.chatId).map((m) => m.text)).toEqual(['part 1', 'part 2']);
    const uuids = fake.callsOf('im.message.create').map((c) => (c.body as { uuid?: string }).uuid ?? '');
    expect(uuids.every((uuid) => uuid.length > 0 && uuid.length <= 50)).toBe(true);
    expect(sendUuid(key)).toBe(uuids[0]);
    // Without a key every send is new.
    await adapter.sendText(to, { text: 'fresh' });
    await adapter.sendText(to, { text: 'fresh' });
    expect(fake.botMessages(to.chatId).filter((m) => m.text === 'fresh')).toHaveLength(2);
  });

  it('sends markdown as a card and plain text as text, and edits each its own way', async () => {
    const { fake, adapter, to } = await started();
    const card = await adapter.sendText(to, { text: '**bold** and `code`', format: 'markdown' });
    const text = await adapter.sendText(to, { text: 'plain', format: 'plain' });
    expect(fake.message(card.messageId)?.msgType).toBe('interactive');
    expect(fake.message(text.messageId)?.msgType).toBe('text');
    await adapter.editText(to, card.messageId, { text: 'card edited' });
    await adapter.editText(to, text.messageId, { text: 'text edited' });
    expect(fake.message(card.messageId)?.text).toBe('card edited');
    expect(fake.message(text.messageId)?.text).toBe('text edited');
    expect(fake.callsOf('im.message.patch')).toHaveLength(1);
    expect(fake.callsOf('im.message.update')).toHaveLength(1);
  });

  it.each(['webhook', 'websocket'] as const)(
    'answers a click with the updated card, and a refused one with a toast only (%s)',
    async (mode) => {
      const { setup, fake, adapter, recorder, ann, to } = await started(mode);
      const prompt = await adapter.sendPrompt(to, {
        text: '⚠️ The agent wants to run a command that needs your approval.\n\n```\nrm -rf build\n```\nWhy it was flagged: recursive delete',
        choices: [
          { data: 'ea:once:abcd1234', label: '✅ Allow once', style: 'primary' },
          { data: 'ea:deny:abcd1234', label: '❌ Deny', style: 'danger' },
        ],
        fallbackText: 'Reply /approve or /deny',
      });
      const shown = fake.message(prompt.messageId);
      expect(shown?.content).toContain('"template":"orange"');
      expect(shown?.text).toContain('rm -rf build');
      // The gateway edits the prompt while it handles the click (settling the approval).
      recorder.answerWith(async (event: InboundEvent) => {
        if (event.kind === 'action' && event.data === 'ea:once:abcd1234') {
          await adapter.editText(to, event.messageId, { text: '✅ Allowed once by Ann.' });
          return { status: 'answered', notice: 'Done: allowed once.' };
        }
        return { status: 'answered', notice: 'This was already decided. Nothing was changed.' };
      });
      await setup.deliver(fake.clickEvent({ messageId: prompt.messageId, operator: ann, label: '❌ Deny' }));
      expect(fake.clicks.at(-1)).toMatchObject({
        outcome: 'unchanged',
        toast: { content: /already decided/ },
      });
      expect(fake.message(prompt.messageId)?.buttons).toHaveLength(2);
      await setup.deliver(
        fake.clickEvent({ messageId: prompt.messageId, operator: ann, label: '✅ Allow once' }),
      );
      expect(fake.clicks.at(-1)).toMatchObject({
        outcome: 'updated',
        toast: { content: 'Done: allowed once.' },
        via: mode === 'webhook' ? 'webhook' : 'ws',
      });
      expect(fake.message(prompt.messageId)).toMatchObject({ text: '✅ Allowed once by Ann.', buttons: [] });
      // Updated through the callback's answer, not a separate PATCH.
      expect(fake.callsOf('im.message.patch')).toHaveLength(0);
      const actions = recorder.events.filter((e) => e.kind === 'action');
      expect(actions.map((e) => e.kind === 'action' && e.data)).toEqual([
        'ea:deny:abcd1234',
        'ea:once:abcd1234',
      ]);
      expect(actions[0]).toMatchObject({ sender: { userId: ann.openId }, chat: { chatId: to.chatId } });
    },
  );

  it('a forged button value reaches the gateway as empty data (refused there), never as something else', async () => {
    const { setup, fake, adapter, recorder, ann, to } = await started();
    const prompt = await adapter.sendPrompt(to, {
      text: 'Continue?',
      choices: [{ data: 'cq:prompt1:0', label: 'Yes' }],
      fallbackText: 'Continue? /yes',
    });
    recorder.answerWith(async () => ({ status: 'answered', notice: 'This button is not valid.' }));
    await setup.deliver(
      fake.clickEvent({
        messageId: prompt.messageId,
        operator: ann,
        value: { hermes_action: 'approve_always' },
      }),
    );
    expect(recorder.events.at(-1)).toMatchObject({ kind: 'action', data: '' });
    expect(fake.clicks.at(-1)).toMatchObject({
      outcome: 'unchanged',
      toast: { content: 'This button is not valid.' },
    });
  });
});
