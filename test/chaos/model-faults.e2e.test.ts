import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAdapter } from '../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../src/platforms/test-adapter/test-adapter-types.js';
import { type FakeOpenAi, type FakeReply, startFakeOpenAi } from '../fakes/fake-openai.js';
import { type QueueMode, startTestGateway, type TestGateway, waitFor } from '../gateway/e2e/gateway-kit.js';

/** Fault bursts are retried at once (`Retry-After: 0`), so the test does not wait out backoff. */
const NOW = { 'retry-after': '0' };

function toolCall(name: string, args: string): FakeReply {
  return { content: '', toolCalls: [{ name, arguments: args }] };
}

/**
 * The model misbehaves in each way a real endpoint does; every message still ends in exactly one
 * visible outcome in its chat — an answer, or an error message that says what went wrong —
 * never silence and never two.
 */
describe.each<QueueMode>(['embedded', 'bullmq'])(
  'model faults end in an answer or a clear error (%s)',
  (mode) => {
    let fake: FakeOpenAi;
    let gw: TestGateway;
    let adapter: TestAdapter;
    let chat = 0;

    beforeAll(async () => {
      fake = await startFakeOpenAi();
      adapter = createTestAdapter();
      gw = await startTestGateway({
        mode,
        env: {
          OPENAI_BASE_URL: fake.baseURL,
          OPENAI_API_KEY: 'sk-test-0123456789abcdef',
          HERMES_MODEL: 'fake-model',
        },
        yaml: ['gateway:', '  allowed_users: ["test:u1"]'].join('\n'),
        adapters: [adapter],
      });
    });
    afterAll(async () => {
      await gw?.close();
      await fake?.close();
    });

    /** Sends one message in a chat of its own and returns every text the chat got, once it got one. */
    async function outcomeOf(...replies: FakeReply[]): Promise<{ texts: string[]; requests: number }> {
      fake.reset();
      fake.script(...replies);
      chat += 1;
      const chatId = `faults-${chat}`;
      await adapter.say({ chatId, userId: 'u1', userName: 'Una', text: `message ${chat}` });
      await waitFor(
        () => adapter.texts(chatId).some((text) => !/^\S+ (terminal|launch_rockets)\b/.test(text)),
        30_000,
      );
      // Anything doubled would arrive right behind the first outcome.
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The tool progress message ("💻 terminal") is not an outcome.
      const texts = adapter.texts(chatId).filter((text) => !/^\S+ (terminal|launch_rockets)\b/.test(text));
      return { texts, requests: fake.requests.length };
    }

    it('a 429 burst is waited out and answered', async () => {
      const rate = { status: 429, error: 'Rate limit reached', headers: NOW };
      const { texts } = await outcomeOf(rate, rate, { content: 'Answer after the burst.' });
      expect(texts).toEqual(['Answer after the burst.']);
    });

    it('a 500 burst longer than the retries ends in one clear error message', async () => {
      const down = { status: 500, error: 'upstream exploded', headers: NOW };
      const { texts, requests } = await outcomeOf(down, down, down, down, down, down, down, down);
      expect(texts).toHaveLength(1);
      expect(texts[0]).toMatch(/^⚠️ .*(model|reach|unavailable|error)/i);
      expect(requests).toBeGreaterThanOrEqual(2);
    });

    it('a stream cut in the middle of a tool call is retried, and nothing half-parsed runs', async () => {
      const { texts } = await outcomeOf(
        {
          content: '',
          toolCalls: [
            { name: 'terminal', arguments: JSON.stringify({ command: 'echo cut-run >> cut.log' }) },
          ],
          argumentChunkSize: 5,
          cutMidToolCall: true,
        },
        { content: 'Answered after the cut.' },
      );
      expect(texts).toEqual(['Answered after the cut.']);
    });

    it('malformed tool-call JSON becomes an error the model reads, then its answer', async () => {
      const { texts } = await outcomeOf(toolCall('terminal', '{"command": "echo hi'), {
        content: 'Sorry, my call was malformed.',
      });
      expect(texts).toEqual(['Sorry, my call was malformed.']);
      const tool = ((fake.requests[1]?.body['messages'] ?? []) as { role: string; content: string }[]).find(
        (message) => message.role === 'tool',
      );
      expect(tool?.content).toMatch(/error|invalid|json/i);
    });

    it('a hallucinated tool name becomes an "unknown tool" result, then the answer', async () => {
      const { texts } = await outcomeOf(toolCall('launch_rockets', '{"count": 3}'), {
        content: 'I do not have that tool.',
      });
      expect(texts).toEqual(['I do not have that tool.']);
      const tool = ((fake.requests[1]?.body['messages'] ?? []) as { role: string; content: string }[]).find(
        (message) => message.role === 'tool',
      );
      expect(tool?.content).toContain('Unknown tool');
    });
  },
);
