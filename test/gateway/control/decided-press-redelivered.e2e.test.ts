import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../../src/platforms/test-adapter/test-adapter-types.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type QueueMode, startTestGateway, type TestGateway, waitFor } from '../e2e/gateway-kit.js';

const ALICE = { chatId: 'c-alice', userId: 'alice', userName: 'Alice' };

/**
 * A press whose decision the gate recorded, in a process that died before it edited the prompt
 * and resumed the parked turn. Telegram then hands the same press (or the person presses again)
 * to the gateway that is up: the decision stands ("already decided"), and the prompt and the
 * turn must still be settled — not left waiting until the approval expires. (The process chaos
 * run found it: a gateway killed right after "approval decided".)
 */
describe.each<QueueMode>(['embedded', 'bullmq'])(
  'a press decided by a process that died before resuming the turn (%s)',
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

    it('settles the prompt and resumes the turn once when the press comes again', async () => {
      const adapter: TestAdapter = createTestAdapter();
      gw = await startTestGateway({
        mode,
        env: {
          OPENAI_BASE_URL: fake.baseURL,
          OPENAI_API_KEY: 'sk-test-0123456789abcdef',
          HERMES_MODEL: 'fake-model',
        },
        yaml: ['gateway:', '  allowed_users: ["test:alice"]'].join('\n'),
        adapters: [adapter],
      });
      mkdirSync(join(gw.workdir, 'build'));
      fake.script(
        { content: '', toolCalls: [{ name: 'terminal', arguments: '{"command":"rm -rf build"}' }] },
        { content: 'Removed the build folder.' },
      );
      await adapter.say({ ...ALICE, text: 'remove build' });
      await waitFor(() => adapter.prompts.length === 1);
      const prompt = adapter.prompts[0]!;
      const once = prompt.prompt.choices.find((choice) => choice.data.startsWith('ea:once:'))!;
      const press = adapter.click({
        messageId: prompt.messageId,
        userId: 'alice',
        userName: 'Alice',
        data: once.data,
      });

      // The first handling of the press got as far as recording the decision, then its process died.
      const requestId = once.data.slice('ea:once:'.length);
      const recorded = await gw.gateway.runtime.approvalGate.decide(requestId, 'once', { userId: 'alice' });
      expect(recorded.status).toBe('recorded');
      expect(existsSync(join(gw.workdir, 'build'))).toBe(true);

      // The same press, delivered again: nothing is decided twice, and the turn goes on.
      expect(await adapter.inject(press)).toStrictEqual({
        status: 'answered',
        notice: 'This was already decided. Nothing was changed.',
      });
      await waitFor(() => adapter.texts(ALICE.chatId).includes('Removed the build folder.'), 10_000);
      expect(existsSync(join(gw.workdir, 'build'))).toBe(false);
      expect(adapter.shown(prompt.messageId)?.text).toBe('✅ Allowed once by Alice. It goes ahead now.');

      // A further press (a stale client still shows the button) changes nothing, runs nothing.
      const late = adapter.action({ ...ALICE, messageId: prompt.messageId, data: once.data });
      expect(await adapter.inject(late)).toMatchObject({
        notice: 'This was already decided. Nothing was changed.',
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(fake.requests.length).toBe(2);
      expect(adapter.texts(ALICE.chatId).filter((text) => text === 'Removed the build folder.')).toHaveLength(
        1,
      );
    }, 30_000);
  },
);
