import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type FakeTelegram, type FakeUser, startFakeTelegram } from '../../fakes/fake-telegram.js';
import { deleteKeys, type QueueMode, waitFor } from '../../gateway/e2e/gateway-kit.js';
import {
  removeDirs,
  startTelegramGateway,
  type TelegramGateway,
  telegramHome,
} from './telegram-gateway-kit.js';
import { ANN } from './telegram-kit.js';

const CAROL: FakeUser = { id: 5151, first_name: 'Carol', username: 'carol' };
const STRANGER: FakeUser = { id: 6666, first_name: 'Eve' };
const YAML = [
  'gateway:',
  '  allowed_users: ["telegram:4242", "telegram:5151"]',
  'platforms:',
  '  telegram:',
  '    unknown_users: pair',
].join('\n');

function terminalCall(command: string) {
  return { content: '', toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command }) }] };
}

describe.each<QueueMode>(['embedded', 'bullmq'])(
  'the gateway on Telegram (long polling, fake Bot API, fake model; %s queue)',
  (mode) => {
    let model: FakeOpenAi;
    let fake: FakeTelegram;
    let dirs: ReturnType<typeof telegramHome>;
    let running: TelegramGateway | undefined;

    beforeAll(async () => {
      model = await startFakeOpenAi();
    });
    afterAll(async () => {
      await model.close();
    });
    beforeEach(async () => {
      fake = await startFakeTelegram();
      dirs = telegramHome(YAML);
    });
    afterEach(async () => {
      const logs = running?.logs.lines ?? [];
      await running?.gw.stop();
      running = undefined;
      await fake.close();
      removeDirs(dirs.home, dirs.workdir);
      if (mode === 'bullmq') await deleteKeys(`${dirs.redisPrefix}*`);
      model.reset();
      for (const line of logs) expect(line).not.toContain(fake.token);
    });

    async function start(): Promise<TelegramGateway> {
      running = await startTelegramGateway({ fake, model, mode, ...dirs });
      return running;
    }
    const texts = (chatId = ANN.id) => fake.messages(chatId).map((m) => m.text);
    const lastPrompt = () => {
      const prompt = fake
        .messages(ANN.id)
        .filter((m) => m.buttons.length > 0)
        .at(-1);
      if (prompt === undefined) throw new Error('no prompt with buttons was shown');
      return prompt;
    };
    const toasts = () => fake.callsOf('answerCallbackQuery').map((c) => c.payload['text']);

    it('answers an allowlisted user as a reply, with typing, and publishes the command menu', async () => {
      await start();
      model.script({ content: 'Hello **Ann**!' });
      const id = fake.sendText({ chatId: ANN.id, from: ANN, text: 'hi' });
      expect(await fake.outcome(id)).toBe('acknowledged');
      await waitFor(() => texts().includes('Hello Ann!'));
      const answer = fake.messages(ANN.id).at(-1);
      expect(answer?.raw).toBe('Hello <b>Ann</b>!');
      expect(answer?.replyTo).toBeTypeOf('number');
      expect(fake.callsOf('sendChatAction').length).toBeGreaterThan(0);
      expect(fake.commands?.map((c) => c.command)).toContain('approve');
    });

    it('gives a stranger a pairing code in a DM, ignores them in a group, and never calls the model', async () => {
      await start();
      const dm = fake.sendText({ chatId: STRANGER.id, from: STRANGER, text: 'let me in' });
      const group = fake.sendText({ chatId: -100777, from: STRANGER, text: '@hermes_test_bot hello' });
      expect(await fake.outcome(dm)).toBe('acknowledged');
      expect(await fake.outcome(group)).toBe('acknowledged');
      await waitFor(() => texts(STRANGER.id).length > 0);
      expect(texts(STRANGER.id).join('\n')).toMatch(/\b[A-Z2-9]{8}\b/);
      expect(fake.messages(-100777)).toHaveLength(0);
      expect(model.requests).toHaveLength(0);
    });

    it('answers in the forum topic the question came from', async () => {
      await start();
      model.script({ content: 'Topic answer.' });
      fake.sendText({
        chatId: -100999,
        from: ANN,
        threadId: 7,
        text: '@hermes_test_bot status of the build?',
      });
      await waitFor(() => texts(-100999).includes('Topic answer.'));
      expect(fake.messages(-100999).at(-1)?.threadId).toBe(7);
    });

    const choices = [
      { label: '✅ Allow once', shown: /Allowed once by ann/, runs: true },
      { label: '✅ Allow for this session', shown: /Allowed for this session by ann/, runs: true },
      { label: '✅ Always allow', shown: /Always allowed by ann/, runs: true },
      { label: '❌ Deny', shown: /Denied by ann/, runs: false },
    ] as const;
    for (const choice of choices) {
      it(`runs the approval round-trip with the inline button "${choice.label}"`, async () => {
        const { workdir } = await start();
        mkdirSync(join(workdir, 'build'));
        model.script(terminalCall('rm -rf build'), { content: 'Finished.' });
        fake.sendText({ chatId: ANN.id, from: ANN, text: 'clean the build folder' });
        await waitFor(() => fake.messages(ANN.id).some((m) => m.buttons.length > 0));
        const prompt = lastPrompt();
        expect(prompt.buttons.map((row) => row.length)).toEqual([2, 2]);
        for (const button of prompt.buttons.flat()) {
          expect(Buffer.byteLength(button.data)).toBeLessThanOrEqual(64);
        }
        const click = fake.click({ messageId: prompt.messageId, from: ANN, label: choice.label });
        expect(await fake.outcome(click)).toBe('acknowledged');
        await waitFor(() => texts().includes('Finished.'));
        expect(existsSync(join(workdir, 'build'))).toBe(!choice.runs);
        expect(fake.message(prompt.messageId)?.text).toMatch(choice.shown);
        expect(fake.message(prompt.messageId)?.buttons).toEqual([]);
        expect(toasts().at(-1)).toMatch(/^Done: /);
      });
    }

    it('asks a clarify question with buttons and resumes with the pressed answer', async () => {
      await start();
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
      fake.sendText({ chatId: ANN.id, from: ANN, text: 'deploy it' });
      await waitFor(() => fake.messages(ANN.id).some((m) => m.buttons.length > 0));
      const prompt = lastPrompt();
      fake.click({ messageId: prompt.messageId, from: ANN, label: 'dev' });
      await waitFor(() => texts().includes('Using dev.'));
      expect(fake.message(prompt.messageId)?.buttons).toEqual([]);
      expect(toasts().at(-1)).toBe('Answered: dev');
    });

    it('answers foreign, forged and stale callbacks without changing anything', async () => {
      const { workdir } = await start();
      mkdirSync(join(workdir, 'build'));
      model.script(terminalCall('rm -rf build'), { content: 'Left it alone.' });
      fake.sendText({ chatId: ANN.id, from: ANN, text: 'remove build' });
      await waitFor(() => fake.messages(ANN.id).some((m) => m.buttons.length > 0));
      const prompt = lastPrompt();
      const onceData = prompt.buttons[0]?.[0]?.data ?? '';
      const foreign = fake.click({ messageId: prompt.messageId, from: CAROL, label: '✅ Allow once' });
      await fake.outcome(foreign);
      const forged = fake.click({ messageId: prompt.messageId, from: ANN, data: 'ea:once:NotARealId99' });
      await fake.outcome(forged);
      const garbage = fake.click({ messageId: prompt.messageId, from: ANN, data: 'rm -rf /' });
      await fake.outcome(garbage);
      expect(toasts()).toEqual([
        expect.stringMatching(/only the person who asked/i),
        expect.stringMatching(/not known/i),
        expect.stringMatching(/not valid/i),
      ]);
      expect(existsSync(join(workdir, 'build'))).toBe(true);
      expect(fake.message(prompt.messageId)?.buttons.flat()).toHaveLength(4);
      const deny = fake.click({ messageId: prompt.messageId, from: ANN, label: '❌ Deny' });
      await fake.outcome(deny);
      await waitFor(() => texts().includes('Left it alone.'));
      const stale = fake.click({ messageId: prompt.messageId, from: ANN, data: onceData });
      await fake.outcome(stale);
      expect(toasts().at(-1)).toMatch(/already decided|not known/i);
      expect(existsSync(join(workdir, 'build'))).toBe(true);
    });

    it('answers a button press and /status at once while the chat’s turn is running', async () => {
      await start();
      model.script({ hang: true });
      fake.sendText({ chatId: ANN.id, from: ANN, text: 'think hard' });
      await waitFor(() => model.requests.length === 1);
      const click = fake.click({ messageId: 1, from: ANN, data: 'ea:once:abcd1234' });
      expect(await fake.outcome(click)).toBe('acknowledged');
      expect(toasts()).toHaveLength(1);
      fake.sendText({ chatId: ANN.id, from: ANN, text: '/status' });
      await waitFor(() => texts().some((t) => /session/i.test(t)));
    });

    it('completes the turn when the button is pressed after a restart', async () => {
      const first = await start();
      mkdirSync(join(first.workdir, 'build'));
      model.script(terminalCall('rm -rf build'), { content: 'Done after the restart.' });
      fake.sendText({ chatId: ANN.id, from: ANN, text: 'clean up' });
      await waitFor(() => fake.messages(ANN.id).some((m) => m.buttons.length > 0));
      const prompt = lastPrompt();
      await first.gw.stop();
      running = undefined;
      await start();
      fake.click({ messageId: prompt.messageId, from: ANN, label: '✅ Allow once' });
      await waitFor(() => texts().includes('Done after the restart.'), 30_000);
      expect(existsSync(join(first.workdir, 'build'))).toBe(false);
    });

    it('runs nothing twice when Telegram delivers an answered update again after a restart', async () => {
      const first = await start();
      model.script({ content: 'Only once.' });
      const id = fake.sendText({ chatId: ANN.id, from: ANN, text: 'say it once' });
      await waitFor(() => texts().includes('Only once.'));
      await first.gw.stop();
      running = undefined;
      fake.redeliver(id); // the confirmation was lost: Telegram hands the update out again
      await start();
      expect(await fake.outcome(id, 2)).toBe('acknowledged');
      fake.sendText({ chatId: ANN.id, from: ANN, text: '/status' });
      await waitFor(() => texts().some((t) => /session/i.test(t)));
      expect(model.requests).toHaveLength(1);
      expect(texts().filter((t) => t === 'Only once.')).toHaveLength(1);
    });
  },
);
