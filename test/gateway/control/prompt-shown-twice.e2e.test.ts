import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { unsentMessageId } from '../../../src/gateway/outbound/approval-decisions.js';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../../src/platforms/test-adapter/test-adapter-types.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type QueueMode, startTestGateway, type TestGateway, waitFor } from '../e2e/gateway-kit.js';

const ALICE = { chatId: 'c-alice', userId: 'alice', userName: 'Alice' };
const ALLOWED = '✅ Allowed once by Alice. It goes ahead now.';

/**
 * A prompt shown twice: the process that sent it died after the platform took the message and
 * before its id was saved, and the outbox sent it again (the process chaos run found it: a
 * gateway killed right after parking a turn). The person presses the copy the store does not
 * know: the command runs once, and both messages show the outcome with no button left.
 */
describe.each<QueueMode>(['embedded', 'bullmq'])('an approval prompt shown twice (%s)', (mode) => {
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
    return adapter;
  }

  it('a press on the copy settles both messages and runs the command once', async () => {
    const adapter = await start();
    const original = adapter.prompts[0]!;
    // The copy the outbox sent again, as the platform shows it.
    const copy = await adapter.sendPrompt({ chatId: ALICE.chatId }, original.prompt);
    const once = original.prompt.choices.find((choice) => choice.data.startsWith('ea:once:'))!;

    const press = adapter.action({ ...ALICE, messageId: copy.messageId, data: once.data });
    expect(await adapter.inject(press)).toStrictEqual({ status: 'answered', notice: 'Done: allowed once.' });
    await waitFor(() => adapter.texts(ALICE.chatId).includes('Removed the build folder.'), 10_000);
    expect(existsSync(join(gw!.workdir, 'build'))).toBe(false);
    for (const id of [original.messageId, copy.messageId]) {
      expect(adapter.shown(id)?.text, id).toBe(ALLOWED);
      expect(adapter.shown(id)?.choices, id).toStrictEqual([]);
    }

    // The original's button, pressed late, changes nothing and runs nothing.
    const late = adapter.action({ ...ALICE, messageId: original.messageId, data: once.data });
    expect(await adapter.inject(late)).toMatchObject({
      notice: 'This was already decided. Nothing was changed.',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.requests.length).toBe(2);
  }, 30_000);

  it('a press on the first copy while the second is being sent settles the first too', async () => {
    const adapter = await start();
    const first = adapter.prompts[0]!;
    const once = first.prompt.choices.find((choice) => choice.data.startsWith('ea:once:'))!;
    // The outbox is sending the prompt again: the record holds no message id until it is sent.
    const store = gw!.gateway.store;
    const record = (await store.findActionPromptByRequest(once.data.slice('ea:once:'.length)))!;
    await store.saveActionPrompt({ ...record, messageId: unsentMessageId(record.promptId) });

    const press = adapter.action({ ...ALICE, messageId: first.messageId, data: once.data });
    expect(await adapter.inject(press)).toStrictEqual({ status: 'answered', notice: 'Done: allowed once.' });
    await waitFor(() => adapter.texts(ALICE.chatId).includes('Removed the build folder.'), 10_000);
    expect(adapter.shown(first.messageId)?.text).toBe(ALLOWED);
    expect(adapter.shown(first.messageId)?.choices).toStrictEqual([]);
  }, 30_000);

  it('a press on the copy after the decision clears that copy too', async () => {
    const adapter = await start();
    const original = adapter.prompts[0]!;
    const copy = await adapter.sendPrompt({ chatId: ALICE.chatId }, original.prompt);
    const once = original.prompt.choices.find((choice) => choice.data.startsWith('ea:once:'))!;

    await adapter.inject(adapter.action({ ...ALICE, messageId: original.messageId, data: once.data }));
    await waitFor(() => adapter.texts(ALICE.chatId).includes('Removed the build folder.'), 10_000);
    expect(adapter.shown(copy.messageId)?.choices.length).toBeGreaterThan(0);

    const onCopy = adapter.action({ ...ALICE, messageId: copy.messageId, data: once.data });
    expect(await adapter.inject(onCopy)).toMatchObject({
      notice: 'This was already decided. Nothing was changed.',
    });
    expect(adapter.shown(copy.messageId)?.text).toBe(ALLOWED);
    expect(adapter.shown(copy.messageId)?.choices).toStrictEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.requests.length).toBe(2);
  }, 30_000);
});
