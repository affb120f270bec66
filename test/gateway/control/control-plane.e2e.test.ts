import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformAdapter } from '../../../src/platforms/adapter.js';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../../src/platforms/test-adapter/test-adapter-types.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type QueueMode, startTestGateway, type TestGateway, waitFor } from '../e2e/gateway-kit.js';

const ALICE = { chatId: 'c-alice', userId: 'alice', userName: 'Alice' };
const ACCESS_YAML = [
  'gateway:',
  '  allowed_users: ["test:alice", "test:carol"]',
  '  admin_users: ["test:admin"]',
].join('\n');

/** The messages the fake model received in its n-th request (empty when there was none). */
function sentMessages(fake: FakeOpenAi, n: number): { role: string; content: string }[] {
  const body = fake.requests[n]?.body as { messages?: { role: string; content: string }[] } | undefined;
  return body?.messages ?? [];
}

function terminalCall(command: string) {
  return { content: '', toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command }) }] };
}

describe.each<QueueMode>(['embedded', 'bullmq'])(
  'chat control plane through the test adapter (%s)',
  (mode) => {
    let fake: FakeOpenAi;
    let gw: TestGateway | undefined;
    let adapter: TestAdapter;

    beforeAll(async () => {
      fake = await startFakeOpenAi();
    });
    afterAll(async () => {
      await fake.close();
    });
    afterEach(async () => {
      await gw?.close();
      gw = undefined;
      fake.reset();
    });

    /** `platform` may wrap the test adapter (the gateway talks to the wrapper, tests to `adapter`). */
    async function start(
      yaml = ACCESS_YAML,
      reuse?: TestGateway,
      platform: (inner: TestAdapter) => PlatformAdapter = (inner) => inner,
    ): Promise<TestGateway> {
      adapter = createTestAdapter();
      gw = await startTestGateway({
        mode,
        env: {
          OPENAI_BASE_URL: fake.baseURL,
          OPENAI_API_KEY: 'sk-test-0123456789abcdef',
          HERMES_MODEL: 'fake-model',
        },
        yaml,
        adapters: [platform(adapter)],
        ...(reuse !== undefined ? { home: reuse.home, workdir: reuse.workdir } : {}),
      });
      return gw;
    }

    const texts = (chatId = ALICE.chatId) => adapter.texts(chatId);
    const lastPrompt = () => {
      const prompt = adapter.prompts.at(-1);
      if (prompt === undefined) throw new Error('no prompt was shown');
      return prompt;
    };

    it('answers an allowed user in the same chat', async () => {
      await start();
      fake.script({ content: 'Hello Alice!' });
      expect(await adapter.say({ ...ALICE, text: 'hi' })).toStrictEqual({ status: 'accepted' });
      await waitFor(() => texts().includes('Hello Alice!'));
      const metrics = await (await fetch(gw!.baseURL.replace(/\/v1$/, '/metrics'))).text();
      expect(metrics).toContain('hermes_inbound_total{platform="test",status="accepted"} 1');
      const system = sentMessages(fake, 0)[0]?.content ?? '';
      expect(system.length).toBeGreaterThan(0);
    });

    it('ignores strangers when an allowlist exists, and unaddressed group chatter', async () => {
      await start();
      expect((await adapter.say({ chatId: 'c-bob', userId: 'bob', text: 'hi' })).status).toBe('rejected');
      expect(
        (
          await adapter.say({
            chatId: 'g1',
            chatType: 'group',
            userId: 'alice',
            text: 'lunch?',
            addressed: false,
          })
        ).status,
      ).toBe('rejected');
      expect(adapter.sent).toHaveLength(0);
      expect(fake.requests).toHaveLength(0);
    });

    it('runs an approved command once the requester presses "Allow once"', async () => {
      await start();
      mkdirSync(join(gw!.workdir, 'build'));
      fake.script(terminalCall('rm -rf build'), { content: 'Deleted the build folder.' });
      await adapter.say({ ...ALICE, text: 'clean the build folder' });
      await waitFor(() => adapter.prompts.length === 1);
      const prompt = lastPrompt();
      expect(prompt.text).toContain('rm -rf build');
      expect(prompt.prompt.choices.map((c) => c.label)).toHaveLength(4);
      expect(existsSync(join(gw!.workdir, 'build'))).toBe(true);
      const answer = await adapter.press({
        messageId: prompt.messageId,
        userId: 'alice',
        userName: 'Alice',
        label: '✅ Allow once',
      });
      expect(answer).toMatchObject({ status: 'answered' });
      await waitFor(() => texts().includes('Deleted the build folder.'));
      expect(existsSync(join(gw!.workdir, 'build'))).toBe(false);
      expect(adapter.shown(prompt.messageId)?.text).toContain('Allowed once by Alice');
      expect(adapter.shown(prompt.messageId)?.choices).toHaveLength(0);
    });

    it('takes a press that comes the instant the prompt appears, before its message id is saved', async () => {
      let pressed: Awaited<ReturnType<TestAdapter['press']>> | undefined;
      // The platform delivers the click before sendPrompt has even returned to the gateway.
      const started = await start(ACCESS_YAML, undefined, (inner) => ({
        ...inner,
        sendPrompt: async (to, prompt) => {
          const sent = await inner.sendPrompt(to, prompt);
          pressed = await inner.press({
            messageId: sent.messageId,
            userId: 'alice',
            userName: 'Alice',
            label: '✅ Allow once',
          });
          return sent;
        },
      }));
      mkdirSync(join(started.workdir, 'build'));
      fake.script(terminalCall('rm -rf build'), { content: 'Deleted the build folder.' });
      await adapter.say({ ...ALICE, text: 'clean the build folder' });
      await waitFor(() => texts().includes('Deleted the build folder.'), 10_000);
      expect(pressed).toMatchObject({ status: 'answered', notice: 'Done: allowed once.' });
      expect(existsSync(join(started.workdir, 'build'))).toBe(false);
      // The answer could not edit a message whose id was unknown; showing it did, right after.
      const shown = adapter.shown(lastPrompt().messageId);
      expect(shown?.text).toContain('Allowed once by Alice');
      expect(shown?.choices).toHaveLength(0);
    });

    it('refuses a foreign user and a forged id, then takes the requester’s denial', async () => {
      await start();
      mkdirSync(join(gw!.workdir, 'build'));
      fake.script(terminalCall('rm -rf build'), { content: 'Understood, I left it alone.' });
      await adapter.say({ ...ALICE, text: 'remove build' });
      await waitFor(() => adapter.prompts.length === 1);
      const prompt = lastPrompt();
      const foreign = await adapter.press({
        messageId: prompt.messageId,
        userId: 'carol',
        label: '✅ Allow once',
      });
      expect(foreign).toMatchObject({
        status: 'answered',
        notice: expect.stringMatching(/only the person who asked/i),
      });
      const forged = await adapter.inject(
        adapter.action({
          chatId: ALICE.chatId,
          userId: 'alice',
          messageId: prompt.messageId,
          data: 'ea:once:NotARealId99',
        }),
      );
      expect(forged).toMatchObject({ status: 'answered' });
      expect(existsSync(join(gw!.workdir, 'build'))).toBe(true);
      await adapter.press({
        messageId: prompt.messageId,
        userId: 'alice',
        userName: 'Alice',
        label: '❌ Deny',
      });
      await waitFor(() => texts().includes('Understood, I left it alone.'));
      expect(existsSync(join(gw!.workdir, 'build'))).toBe(true);
      const toolResult = sentMessages(fake, 1).find((m) => m.role === 'tool');
      expect(toolResult?.content).toMatch(/denied|not consent/i);
      // A stale client can still send the old button after the prompt was edited: it changes nothing.
      const late = await adapter.inject(
        adapter.action({
          chatId: ALICE.chatId,
          userId: 'alice',
          messageId: prompt.messageId,
          data: prompt.prompt.choices[0]?.data ?? '',
        }),
      );
      expect(late).toMatchObject({
        status: 'answered',
        notice: expect.stringMatching(/already decided|not known/i),
      });
      expect(existsSync(join(gw!.workdir, 'build'))).toBe(true);
    });

    it('"Allow for this session" lets the same kind of command run again without asking', async () => {
      await start();
      mkdirSync(join(gw!.workdir, 'one'));
      mkdirSync(join(gw!.workdir, 'two'));
      fake.script(terminalCall('rm -rf one'), { content: 'Removed one.' }, terminalCall('rm -rf two'), {
        content: 'Removed two.',
      });
      await adapter.say({ ...ALICE, text: 'remove one' });
      await waitFor(() => adapter.prompts.length === 1);
      const typingBefore = adapter.typing.length;
      await adapter.press({
        messageId: lastPrompt().messageId,
        userId: 'alice',
        label: '✅ Allow for this session',
      });
      await waitFor(() => texts().includes('Removed one.'));
      // The resumed turn showed "typing…" again after the prompt had paused it.
      expect(adapter.typing.length).toBeGreaterThan(typingBefore);
      await adapter.say({ ...ALICE, text: 'now remove two' });
      await waitFor(() => texts().includes('Removed two.'));
      expect(adapter.prompts).toHaveLength(1);
      expect(existsSync(join(gw!.workdir, 'two'))).toBe(false);
    });

    it('"Always allow" is saved to command_allowlist in config.yaml', async () => {
      await start();
      mkdirSync(join(gw!.workdir, 'build'));
      fake.script(terminalCall('rm -rf build'), { content: 'Removed for good.' });
      await adapter.say({ ...ALICE, text: 'remove build' });
      await waitFor(() => adapter.prompts.length === 1);
      await adapter.press({ messageId: lastPrompt().messageId, userId: 'alice', label: '✅ Always allow' });
      await waitFor(() => texts().includes('Removed for good.'));
      const saved = readFileSync(join(gw!.home, 'config.yaml'), 'utf8');
      expect(saved).toMatch(/command_allowlist:[\s\S]*recursive delete/);
    });

    it('falls back to the text prompt when the buttons cannot be sent', async () => {
      await start();
      mkdirSync(join(gw!.workdir, 'build'));
      adapter.failNext({ code: 'bad_request', on: 'prompt' });
      fake.script(terminalCall('rm -rf build'), { content: 'Done after the text prompt.' });
      await adapter.say({ ...ALICE, text: 'clean up' });
      await waitFor(() => texts().some((t) => t.includes('/approve') && t.includes('rm -rf build')));
      await adapter.say({ ...ALICE, text: '/approve' });
      await waitFor(() => texts().includes('Done after the text prompt.'));
      expect(existsSync(join(gw!.workdir, 'build'))).toBe(false);
    });

    it('resolves the oldest pending request with /approve', async () => {
      await start();
      mkdirSync(join(gw!.workdir, 'build'));
      fake.script(terminalCall('rm -rf build'), { content: 'Done via command.' });
      await adapter.say({ ...ALICE, text: 'clean up' });
      await waitFor(() => adapter.prompts.length === 1);
      await adapter.say({ ...ALICE, text: '/approve' });
      await waitFor(() => texts().includes('Done via command.'));
      expect(existsSync(join(gw!.workdir, 'build'))).toBe(false);
    });

    it('tells the model that silence is not consent when nobody answers in time', async () => {
      await start(`${ACCESS_YAML}\napprovals:\n  timeout: 1\n`);
      mkdirSync(join(gw!.workdir, 'build'));
      fake.script(terminalCall('rm -rf build'), { content: 'Nobody answered, so I did nothing.' });
      await adapter.say({ ...ALICE, text: 'clean up' });
      await waitFor(() => adapter.prompts.length === 1);
      const prompt = lastPrompt();
      await waitFor(() => texts().includes('Nobody answered, so I did nothing.'), 30_000);
      expect(existsSync(join(gw!.workdir, 'build'))).toBe(true);
      expect(adapter.shown(prompt.messageId)?.text).toMatch(/did NOT run/);
      const toolResult = sentMessages(fake, 1).find((m) => m.role === 'tool');
      expect(toolResult?.content).toMatch(/silence is not consent|timed out/i);
    });

    it('completes the turn when the button is pressed after a full restart', async () => {
      const first = await start();
      mkdirSync(join(first.workdir, 'build'));
      fake.script(terminalCall('rm -rf build'), { content: 'Done after the restart.' });
      await adapter.say({ ...ALICE, text: 'clean up' });
      await waitFor(() => adapter.prompts.length === 1);
      const prompt = lastPrompt();
      const data = prompt.prompt.choices[0]?.data ?? '';
      await first.stop();
      gw = undefined;
      const second = await start(ACCESS_YAML, first);
      const result = await adapter.inject(
        adapter.action({
          chatId: ALICE.chatId,
          userId: 'alice',
          userName: 'Alice',
          messageId: prompt.messageId,
          data,
        }),
      );
      expect(result).toMatchObject({ status: 'answered' });
      await waitFor(() => texts().includes('Done after the restart.'), 30_000);
      expect(existsSync(join(second.workdir, 'build'))).toBe(false);
    });

    it('asks a clarify question with buttons and resumes with the chosen answer', async () => {
      await start();
      fake.script(
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
      await adapter.say({ ...ALICE, text: 'deploy it' });
      await waitFor(() => adapter.prompts.length === 1);
      await adapter.press({ messageId: lastPrompt().messageId, userId: 'alice', label: 'dev' });
      await waitFor(() => texts().includes('Using dev.'));
      const toolResult = sentMessages(fake, 1).find((m) => m.role === 'tool');
      expect(toolResult?.content).toContain('dev');
    });

    it('takes a plain reply as the answer to an open clarify question, and shows typing meanwhile', async () => {
      await start();
      fake.script(
        {
          content: '',
          toolCalls: [
            { name: 'clarify', arguments: JSON.stringify({ question: 'What should the file be called?' }) },
          ],
        },
        { content: 'Created notes-2026.md.' },
      );
      await adapter.say({ ...ALICE, text: 'make a notes file' });
      const question = () => adapter.messages(ALICE.chatId).find((m) => m.text.startsWith('❓ What should'));
      await waitFor(() => question() !== undefined);
      expect(adapter.typing.length).toBeGreaterThan(0);
      await adapter.say({ ...ALICE, text: 'notes-2026.md', replyToMessageId: question()?.messageId ?? '' });
      await waitFor(() => texts().includes('Created notes-2026.md.'));
      const toolResult = sentMessages(fake, 1).find((m) => m.role === 'tool');
      expect(toolResult?.content).toContain('notes-2026.md');
      expect(fake.requests).toHaveLength(2);
    });

    it('answers commands at once while a turn is running', async () => {
      await start();
      fake.script({ hang: true });
      await adapter.say({ ...ALICE, text: 'think hard' });
      await waitFor(() => fake.requests.length === 1);
      await adapter.say({ ...ALICE, text: '/status' });
      await waitFor(() => texts().some((t) => /session/i.test(t)));
      await adapter.say({ ...ALICE, text: '/whoami' });
      await waitFor(() => texts().some((t) => t.includes('alice')));
    });
  },
);

describe('pairing through the chat (embedded)', () => {
  let fake: FakeOpenAi;
  let gw: TestGateway | undefined;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    await gw?.close();
    await fake.close();
  });

  it('gives a stranger a code, and an admin’s /pair lets them in', async () => {
    const adapter = createTestAdapter();
    gw = await startTestGateway({
      mode: 'embedded',
      env: {
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'sk-test-0123456789abcdef',
        HERMES_MODEL: 'fake-model',
      },
      yaml: 'gateway:\n  admin_users: ["test:admin"]\n',
      adapters: [adapter],
    });
    await adapter.say({ chatId: 'c-bob', userId: 'bob', text: 'hello?' });
    const pairing = adapter.texts('c-bob').join('\n');
    const code = /\b([A-Z2-9]{8})\b/.exec(pairing)?.[1];
    expect(code).toBeDefined();
    expect(fake.requests).toHaveLength(0);
    await adapter.say({ chatId: 'c-admin', userId: 'admin', text: `/pair ${code}` });
    await waitFor(() => adapter.texts('c-admin').length > 0);
    fake.script({ content: 'Welcome, Bob.' });
    await adapter.say({ chatId: 'c-bob', userId: 'bob', text: 'hello again' });
    await waitFor(() => adapter.texts('c-bob').includes('Welcome, Bob.'));
  });
});
