import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { chatGatewayOptions, startTestGateway, type TestGateway, waitFor } from '../e2e/gateway-kit.js';

const ALICE = { chatId: 'c-alice', userId: 'alice', userName: 'Alice' };

/**
 * A reply that answered a clarify question, delivered again by the platform because the first
 * delivery failed after the answer was recorded (its resume could not be queued). The second
 * delivery is the same answer — the turn resumes with it at once — and never a new message for
 * the agent as well.
 */
describe('a clarify reply delivered again after its answer was recorded', () => {
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

  const userTexts = () =>
    fake.requests.flatMap((request) =>
      (request.body['messages'] as { role: string; content: unknown }[])
        .filter((message) => message.role === 'user')
        .map((message) => String(message.content)),
    );

  it('resumes the turn with the answer and does not start a turn with it', async () => {
    const adapter = createTestAdapter();
    gw = await startTestGateway({
      mode: 'embedded',
      ...chatGatewayOptions(fake.baseURL, [adapter]),
    });
    fake.script(
      {
        content: '',
        toolCalls: [{ name: 'clarify', arguments: JSON.stringify({ question: 'Which branch?' }) }],
      },
      { content: 'Deploying the branch you named.' },
    );
    await adapter.say({ ...ALICE, text: 'deploy it' });
    const store = gw.gateway.store;
    await waitFor(async () => (await store.listActionPrompts({ pendingOnly: true })).length === 1, 10_000);
    const [prompt] = await store.listActionPrompts({ pendingOnly: true });
    // The first delivery of the reply recorded the answer, then failed before the resume.
    const reply = adapter.message({ ...ALICE, text: 'release-7' });
    expect(
      await store.resolveActionPrompt(prompt!.promptId, { outcome: 'answered', answer: 'release-7' }),
    ).toBe(true);

    // The platform delivers the reply again.
    expect(await adapter.inject(reply)).toStrictEqual({ status: 'accepted' });
    await waitFor(() => adapter.texts(ALICE.chatId).includes('Deploying the branch you named.'), 5_000);
    const resumed = (fake.requests[1]?.body['messages'] ?? []) as { role: string; content: unknown }[];
    const toolMessages = resumed.filter((message) => message.role === 'tool');
    expect(JSON.stringify(toolMessages)).toContain('release-7');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.requests.length).toBe(2);
    expect(userTexts().filter((text) => text.includes('release-7'))).toStrictEqual([]);
    expect(await store.listParkedTurns()).toEqual([]);
  }, 30_000);
});
