import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeLark,
  type FakeLarkUser,
  type LarkEventEnvelope,
  postCallback,
  startFakeLark,
} from '../../fakes/fake-lark.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import {
  type QueueMode,
  startTestGateway,
  type TestGateway,
  waitFor,
} from '../../gateway/e2e/gateway-kit.js';
import { type FeishuMode, fakeOptions, feishuEnv } from './feishu-kit.js';

function terminalCall(command: string) {
  return { content: '', toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command }) }] };
}

/**
 * The whole gateway with Feishu built from its settings (the platform list), on the fake Lark and
 * the fake model: webhook mode on the gateway's own server, and the long connection.
 */
describe.each<QueueMode>(['embedded', 'bullmq'])(
  'the gateway on Feishu (fake Lark, fake model; %s queue)',
  (mode) => {
    let model: FakeOpenAi;
    let fake: FakeLark | undefined;
    let gw: TestGateway | undefined;

    beforeAll(async () => {
      model = await startFakeOpenAi();
    });
    afterAll(async () => {
      await model.close();
    });
    afterEach(async () => {
      await gw?.close();
      gw = undefined;
      await fake?.close();
      fake = undefined;
      model.reset();
    });

    async function start(connection: FeishuMode = 'webhook') {
      const lark = await startFakeLark(fakeOptions(connection));
      fake = lark;
      const ann = lark.user('Ann');
      const carl = lark.user('Carl');
      const stranger = lark.user('Eve');
      const team = lark.group('team', [ann, carl, stranger]);
      gw = await startTestGateway({
        mode,
        env: {
          OPENAI_BASE_URL: model.baseURL,
          OPENAI_API_KEY: 'sk-test-0123456789abcdef',
          HERMES_MODEL: 'fake-model',
          ...feishuEnv(lark, connection),
        },
        yaml: [
          'gateway:',
          `  allowed_users: ["feishu:${ann.openId}", "feishu:${carl.openId}"]`,
          'platforms:',
          '  feishu:',
          '    group_policy: open',
        ].join('\n'),
      });
      const address = gw.baseURL.replace(/\/v1$/, '');
      const url = `${address}/feishu/webhook`;
      const dm = lark.dm(ann);
      const deliver = async (payload: object): Promise<number> => {
        if (connection === 'webhook') return (await lark.deliverWebhook(url, payload)).status;
        const ack = await lark.pushEvent(payload as LarkEventEnvelope);
        return ack.acknowledged ? ack.code : 0;
      };
      const say = (from: FakeLarkUser, text: string, chat = lark.dm(from)) =>
        deliver(lark.userSends({ from, chat, text }).event);
      const texts = (chatId = dm.chatId) => lark.botMessages(chatId).map((m) => m.text);
      const lastPrompt = (chatId = dm.chatId) => {
        const prompt = lark
          .botMessages(chatId)
          .filter((m) => m.buttons.length > 0)
          .at(-1);
        if (prompt === undefined) throw new Error('no prompt with buttons was shown');
        return prompt;
      };
      const click = (
        messageId: string,
        operator: FakeLarkUser,
        input: { label: string } | { value: unknown },
      ) => deliver(lark.clickEvent({ messageId, operator, ...input }));
      return {
        lark,
        ann,
        carl,
        stranger,
        team,
        dm,
        address,
        url,
        deliver,
        say,
        texts,
        lastPrompt,
        click,
        gw,
      };
    }

    it('answers a DM through the webhook on the gateway server, split at the limit, and refuses forged callbacks', async () => {
      const { lark, ann, address, url, say, texts } = await start();
      const forged = lark.userSends({ from: ann, chat: lark.dm(ann), text: 'forged' }).event;
      expect(
        (await postCallback(url, lark.webhookRequest(forged, { variant: 'wrong-signature' }))).status,
      ).toBe(401);
      expect(
        (await postCallback(url, lark.webhookRequest(forged, { variant: 'garbage-encrypt' }))).status,
      ).toBe(400);
      expect(model.requests).toHaveLength(0);
      const long = `${'word '.repeat(1200)}\n\n${'more '.repeat(800)}`.trim();
      model.script({ content: long });
      expect(await say(ann, 'tell me a lot')).toBe(200);
      await waitFor(() => texts().join('').replace(/\s+/g, '').length >= long.replace(/\s+/g, '').length);
      const parts = lark.botMessages(lark.dm(ann).chatId);
      expect(parts.length).toBeGreaterThanOrEqual(3);
      for (const part of parts) expect([...part.text].length).toBeLessThanOrEqual(4000);
      const uuids = lark.callsOf('im.message.create').map((c) => (c.body as { uuid?: string }).uuid);
      expect(new Set(uuids).size).toBe(uuids.length);
      const ready = (await (await fetch(`${address}/readyz`)).json()) as { checks: unknown[] };
      expect(ready.checks).toContainEqual({ name: 'platform:feishu', ok: true });
    });

    it('in a group answers only an @mention, and ignores a stranger without calling the model', async () => {
      const { lark, ann, stranger, team, deliver, texts } = await start();
      model.script({ content: 'Group answer.' });
      await deliver(lark.userSends({ from: ann, chat: team, text: 'just chatting' }).event);
      await deliver(
        lark.userSends({ from: stranger, chat: team, text: '@_user_1 hi', mentions: ['bot'] }).event,
      );
      await deliver(
        lark.userSends({ from: ann, chat: team, text: '@_user_1 status?', mentions: ['bot'] }).event,
      );
      await waitFor(() => texts(team.chatId).includes('Group answer.'));
      expect(model.requests).toHaveLength(1);
      expect(JSON.stringify(model.requests[0])).toContain('status?');
      expect(JSON.stringify(model.requests[0])).not.toContain('just chatting');
    });

    const choices = [
      { label: '✅ Allow once', shown: /Allowed once by/, runs: true },
      { label: '✅ Allow for this session', shown: /Allowed for this session by/, runs: true },
      { label: '✅ Always allow', shown: /Always allowed by/, runs: true },
      { label: '❌ Deny', shown: /Denied by/, runs: false },
    ] as const;
    for (const choice of choices) {
      it(`runs the approval round-trip with the card button "${choice.label}"`, async () => {
        const { lark, ann, say, texts, lastPrompt, click, gw: running } = await start();
        mkdirSync(join(running.workdir, 'build'));
        model.script(terminalCall('rm -rf build'), { content: 'Finished.' });
        await say(ann, 'clean the build folder');
        await waitFor(() => lark.botMessages().some((m) => m.buttons.length > 0));
        const prompt = lastPrompt();
        expect(prompt.buttons.map((b) => b.text)).toEqual(choices.map((c) => c.label));
        expect(prompt.text).toContain('rm -rf build');
        expect(prompt.text).toMatch(/Why it was flagged/);
        expect(prompt.text).toMatch(/Expires in \d+ minute/);
        expect(await click(prompt.messageId, ann, { label: choice.label })).toBe(200);
        expect(lark.clicks.at(-1)).toMatchObject({ outcome: 'updated', toast: { content: /^Done: / } });
        expect(lark.message(prompt.messageId)?.text).toMatch(choice.shown);
        expect(lark.message(prompt.messageId)?.buttons).toEqual([]);
        await waitFor(() => texts().includes('Finished.'));
        expect(existsSync(join(running.workdir, 'build'))).toBe(!choice.runs);
      });
    }

    it('answers foreign, forged and stale clicks with a toast and changes nothing', async () => {
      const { lark, ann, carl, say, texts, lastPrompt, click, gw: running } = await start();
      mkdirSync(join(running.workdir, 'build'));
      model.script(terminalCall('rm -rf build'), { content: 'Left it alone.' });
      await say(ann, 'remove build');
      await waitFor(() => lark.botMessages().some((m) => m.buttons.length > 0));
      const prompt = lastPrompt();
      const onceValue = prompt.buttons[0]?.value;
      await click(prompt.messageId, carl, { label: '✅ Allow once' });
      await click(prompt.messageId, ann, { value: { hermes: 'ea:once:NotARealId99' } });
      await click(prompt.messageId, ann, { value: { hermes_action: 'approve_always', approval_id: 1 } });
      expect(lark.clicks.map((c) => [c.outcome, c.toast?.content])).toEqual([
        ['unchanged', expect.stringMatching(/only the person who asked/i)],
        ['unchanged', expect.stringMatching(/not known/i)],
        ['unchanged', expect.stringMatching(/not valid/i)],
      ]);
      expect(lark.message(prompt.messageId)?.buttons).toHaveLength(4);
      expect(existsSync(join(running.workdir, 'build'))).toBe(true);
      await click(prompt.messageId, ann, { label: '❌ Deny' });
      await waitFor(() => texts().includes('Left it alone.'));
      await click(prompt.messageId, ann, { value: onceValue });
      expect(lark.clicks.at(-1)).toMatchObject({
        outcome: 'unchanged',
        toast: { content: /already decided|not known/i },
      });
      expect(existsSync(join(running.workdir, 'build'))).toBe(true);
    });

    it('asks a clarify question with card buttons and resumes with the pressed answer', async () => {
      const { lark, ann, say, texts, lastPrompt, click } = await start();
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
      await say(ann, 'deploy it');
      await waitFor(() => lark.botMessages().some((m) => m.buttons.length > 0));
      const prompt = lastPrompt();
      await click(prompt.messageId, ann, { label: 'dev' });
      await waitFor(() => texts().includes('Using dev.'));
      expect(lark.message(prompt.messageId)?.buttons).toEqual([]);
      expect(lark.clicks.at(-1)?.toast?.content).toBe('Answered: dev');
    });

    it('runs nothing twice when Lark delivers a message again', async () => {
      const { lark, ann, deliver, texts } = await start();
      model.script({ content: 'Only once.' });
      const { event } = lark.userSends({ from: ann, chat: lark.dm(ann), text: 'once please' });
      await deliver(event);
      await deliver(event);
      await deliver({ ...event, header: { ...event.header, event_id: `${event.header.event_id}-again` } });
      await waitFor(() => texts().includes('Only once.'));
      await new Promise((r) => setTimeout(r, 300));
      expect(texts().filter((t) => t === 'Only once.')).toHaveLength(1);
      expect(model.requests).toHaveLength(1);
    });

    it('answers over the long connection and reports it in /readyz', async () => {
      const { ann, address, say, texts, lark } = await start('websocket');
      model.script({ content: 'Over the wire.' });
      expect(await say(ann, 'hello')).toBe(200);
      await waitFor(() => texts().includes('Over the wire.'));
      const ready = (await (await fetch(`${address}/readyz`)).json()) as { checks: unknown[] };
      expect(ready.checks).toContainEqual({ name: 'platform:feishu', ok: true });
      // The gateway serves no webhook in this mode.
      expect((await fetch(`${address}/feishu/webhook`, { method: 'POST', body: '{}' })).status).toBe(404);
      expect(lark.ws.connections).toBe(1);
    });
  },
);
