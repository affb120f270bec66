import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter, TestFailure } from '../../../src/platforms/test-adapter/test-adapter-types.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { chatGatewayOptions, startTestGateway, type TestGateway, waitFor } from '../e2e/gateway-kit.js';

const ALICE = { chatId: 'c-alice', userId: 'alice', userName: 'Alice' };
const DONE = 'Removed the build folder.';

/**
 * An approval prompt meets a failing platform. Only a platform that refuses the buttons for good
 * gets the text version (`/approve`); an outage, a rate limit or a send whose answer was lost is
 * retried with the buttons, and a prompt the platform still would not take is shown later by the
 * outbox — with its buttons. (The process chaos run found the old way: one dropped connection
 * turned a prompt into text for good, and a person who answers with the buttons never could.)
 */
describe('an approval prompt while the platform fails', () => {
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

  /** A gateway whose model asks to delete a folder; `failure` is programmed before the message. */
  async function ask(failure: TestFailure): Promise<TestAdapter> {
    const adapter = createTestAdapter();
    gw = await startTestGateway({
      mode: 'embedded',
      ...chatGatewayOptions(fake.baseURL, [adapter]),
    });
    mkdirSync(join(gw.workdir, 'build'));
    fake.script(
      { content: '', toolCalls: [{ name: 'terminal', arguments: '{"command":"rm -rf build"}' }] },
      { content: DONE },
    );
    adapter.failNext(failure);
    await adapter.say({ ...ALICE, text: 'remove build' });
    return adapter;
  }

  /** Presses "Allow once" on a prompt with buttons and waits for the command's answer. */
  async function allowOnce(adapter: TestAdapter, messageId: string): Promise<void> {
    const shown = adapter.shown(messageId);
    const once = shown?.choices.find((choice) => choice.data.startsWith('ea:once:'));
    expect(once, 'the prompt has its buttons').toBeDefined();
    const press = adapter.action({ ...ALICE, messageId, data: once!.data });
    expect(await adapter.inject(press)).toStrictEqual({ status: 'answered', notice: 'Done: allowed once.' });
    await waitFor(() => adapter.texts(ALICE.chatId).includes(DONE), 10_000);
    expect(existsSync(join(gw!.workdir, 'build'))).toBe(false);
  }

  const textVersions = (adapter: TestAdapter) =>
    adapter.sent.filter((sent) => sent.text.includes('/approve'));

  it('an outage on the first try: the prompt is sent again, with its buttons', async () => {
    const adapter = await ask({ code: 'unavailable', on: 'prompt' });
    await waitFor(() => adapter.prompts.length === 1, 10_000);
    expect(adapter.prompts[0]?.rendered).toBe('buttons');
    expect(textVersions(adapter)).toStrictEqual([]);
    await allowOnce(adapter, adapter.prompts[0]!.messageId);
  }, 30_000);

  it('a send whose answer was lost: the copies keep their buttons, never the text version', async () => {
    const adapter = await ask({ code: 'unavailable', on: 'prompt', maybeDelivered: true });
    await waitFor(() => adapter.prompts.length === 2, 10_000);
    expect(adapter.prompts.map((prompt) => prompt.rendered)).toStrictEqual(['buttons', 'buttons']);
    expect(textVersions(adapter)).toStrictEqual([]);
    await allowOnce(adapter, adapter.prompts[0]!.messageId);
    // The press on one copy settles both.
    for (const prompt of adapter.prompts) expect(adapter.shown(prompt.messageId)?.choices).toStrictEqual([]);
  }, 30_000);

  it('a platform that would not take it for now: the outbox shows it later, with its buttons', async () => {
    // A rate limit longer than delivery waits for ends the live try; the prompt stays in the outbox.
    const adapter = await ask({ code: 'rate_limited', retryAfterMs: 600_000, on: 'prompt' });
    const store = gw!.gateway.store;
    await waitFor(async () => (await store.listActionPrompts({ pendingOnly: true })).length === 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(adapter.prompts).toStrictEqual([]);
    expect(textVersions(adapter)).toStrictEqual([]);

    await gw!.gateway.control?.sweepOutbox({ minAgeMs: 0 });
    await waitFor(() => adapter.prompts.length === 1, 10_000);
    expect(adapter.prompts[0]?.rendered).toBe('buttons');
    expect(textVersions(adapter)).toStrictEqual([]);
    // A second sweep finds it shown and sends nothing.
    await gw!.gateway.control?.sweepOutbox({ minAgeMs: 0 });
    expect(adapter.prompts.length).toBe(1);
    await allowOnce(adapter, adapter.prompts[0]!.messageId);
  }, 30_000);

  it('buttons refused for good: the text version goes out, and /approve runs the command', async () => {
    const adapter = await ask({ code: 'bad_request', on: 'prompt' });
    await waitFor(() => textVersions(adapter).length === 1, 10_000);
    expect(adapter.prompts).toStrictEqual([]);
    await adapter.say({ ...ALICE, text: '/approve' });
    await waitFor(() => adapter.texts(ALICE.chatId).includes(DONE), 10_000);
    expect(existsSync(join(gw!.workdir, 'build'))).toBe(false);
  }, 30_000);
});
