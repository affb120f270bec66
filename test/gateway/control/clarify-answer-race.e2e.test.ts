import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../../src/platforms/test-adapter/test-adapter-types.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type QueueMode, startTestGateway, type TestGateway, waitFor } from '../e2e/gateway-kit.js';

const ALICE = { chatId: 'c-alice', userId: 'alice', userName: 'Alice' };

/**
 * A clarify question answered the instant it appears, before the gateway saved its message id:
 * the answer could not edit the message then, so showing the prompt edits it right after — and
 * that edit must carry the answer, which is kept with the resolution.
 */
describe.each<QueueMode>(['embedded', 'bullmq'])(
  'clarify answered before its message id is saved (%s)',
  (mode) => {
    let fake: FakeOpenAi;
    let gw: TestGateway | undefined;

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

    it('edits the prompt to show who answered and what', async () => {
      const adapter: TestAdapter = createTestAdapter();
      let pressed: Awaited<ReturnType<TestAdapter['press']>> | undefined;
      gw = await startTestGateway({
        mode,
        env: {
          OPENAI_BASE_URL: fake.baseURL,
          OPENAI_API_KEY: 'sk-test-0123456789abcdef',
          HERMES_MODEL: 'fake-model',
        },
        yaml: ['gateway:', '  allowed_users: ["test:alice"]'].join('\n'),
        adapters: [
          {
            ...adapter,
            sendPrompt: async (to, prompt) => {
              const sent = await adapter.sendPrompt(to, prompt);
              pressed = await adapter.press({
                messageId: sent.messageId,
                userId: 'alice',
                userName: 'Alice',
                label: 'dev',
              });
              return sent;
            },
          },
        ],
      });
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
      await waitFor(() => adapter.texts(ALICE.chatId).includes('Using dev.'), 10_000);
      expect(pressed).toMatchObject({ status: 'answered', notice: 'Answered: dev' });
      const prompt = adapter.prompts.at(-1);
      expect(prompt).toBeDefined();
      await waitFor(() => adapter.shown(prompt?.messageId ?? '')?.text === '❓ Answered by Alice: dev');
      expect(adapter.shown(prompt?.messageId ?? '')?.choices).toHaveLength(0);
    });
  },
);
