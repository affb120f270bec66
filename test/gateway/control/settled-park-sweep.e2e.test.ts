import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/approval/approval-types.js';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../../src/platforms/test-adapter/test-adapter-types.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import {
  chatGatewayOptions,
  type QueueMode,
  startTestGateway,
  type TestGateway,
  waitFor,
} from '../e2e/gateway-kit.js';

const ALICE = { chatId: 'c-alice', userId: 'alice', userName: 'Alice' };

/**
 * An answer recorded whose resume never reached the queue: the process that recorded it died
 * right after, or the queue was down and the platform gave up delivering the press again. The
 * housekeeping sweep resumes such a turn once its answer has waited `settledGraceMs`, instead of
 * leaving it parked until the request expires (or, for a question, for an hour).
 */
describe.each<QueueMode>(['embedded', 'bullmq'])('an answered pause whose resume was lost (%s)', (mode) => {
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

  async function start(): Promise<TestAdapter> {
    const adapter = createTestAdapter();
    gw = await startTestGateway({
      mode,
      ...chatGatewayOptions(fake.baseURL, [adapter]),
      sweepIntervalMs: 200,
      settledGraceMs: 500,
    });
    return adapter;
  }

  it('an approval decided in the gate: the sweep resumes the turn and the command runs once', async () => {
    const adapter = await start();
    mkdirSync(join(gw!.workdir, 'build'));
    fake.script(
      { content: '', toolCalls: [{ name: 'terminal', arguments: '{"command":"rm -rf build"}' }] },
      { content: 'Removed the build folder.' },
    );
    await adapter.say({ ...ALICE, text: 'remove build' });
    await waitFor(async () => (await gw!.gateway.store.listParkedTurns()).length === 1, 10_000);
    const parked = (await gw!.gateway.store.listParkedTurns())[0]!;
    const request = (parked.state as { request: ApprovalRequest }).request;
    // Recorded as a press would, and then nothing: no resume was submitted.
    const decided = await gw!.gateway.runtime.approvalGate.decide(request.id, 'once', { userId: 'alice' });
    expect(decided.status).toBe('recorded');

    await waitFor(() => adapter.texts(ALICE.chatId).includes('Removed the build folder.'), 10_000);
    expect(existsSync(join(gw!.workdir, 'build'))).toBe(false);
    expect(await gw!.gateway.store.listParkedTurns()).toEqual([]);
    // Later sweeps find nothing to do: the command ran once, one answer.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(fake.requests.length).toBe(2);
    expect(adapter.texts(ALICE.chatId).filter((text) => text === 'Removed the build folder.')).toHaveLength(
      1,
    );
  }, 30_000);

  it('a question answered on its prompt: the sweep resumes the turn with that answer', async () => {
    const adapter = await start();
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
      { content: 'Using the branch you picked.' },
    );
    await adapter.say({ ...ALICE, text: 'deploy it' });
    await waitFor(() => adapter.prompts.length === 1, 10_000);
    const store = gw!.gateway.store;
    const [prompt] = await store.listActionPrompts({ pendingOnly: true });
    // The reply was recorded as the answer, and then the process died before resuming.
    expect(await store.resolveActionPrompt(prompt!.promptId, { outcome: 'answered', answer: 'dev' })).toBe(
      true,
    );

    await waitFor(() => adapter.texts(ALICE.chatId).includes('Using the branch you picked.'), 10_000);
    const toolResult = fake.requests[1]?.body['messages'] as { role: string; content: unknown }[];
    expect(JSON.stringify(toolResult.filter((m) => m.role === 'tool'))).toContain('dev');
    expect(await store.listParkedTurns()).toEqual([]);
  }, 30_000);

  it('a pending approval is left alone', async () => {
    const adapter = await start();
    fake.script({ content: '', toolCalls: [{ name: 'terminal', arguments: '{"command":"rm -rf build"}' }] });
    await adapter.say({ ...ALICE, text: 'remove build' });
    await waitFor(() => adapter.prompts.length === 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(fake.requests.length).toBe(1);
    expect((await gw!.gateway.store.listParkedTurns()).map((turn) => turn.reason)).toEqual(['approval']);
  }, 30_000);
});
