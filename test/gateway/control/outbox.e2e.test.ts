import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildSessionKey } from '../../../src/gateway/session-key.js';
import { outboxId } from '../../../src/gateway/store/gateway-store.js';
import {
  createSqliteGatewayStore,
  type SqliteGatewayStore,
} from '../../../src/gateway/store/sqlite-gateway-store.js';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../../src/platforms/test-adapter/test-adapter-types.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { silentLogger } from '../../helpers/test-config.js';
import { type QueueMode, startTestGateway, type TestGateway, waitFor } from '../e2e/gateway-kit.js';

const ALICE = { chatId: 'c-alice', userId: 'alice', userName: 'Alice' };
const ACCESS_YAML = ['gateway:', '  allowed_users: ["test:alice"]'].join('\n');
const ALICE_SESSION = buildSessionKey({
  platform: 'test',
  chatType: 'dm',
  chatId: ALICE.chatId,
  userId: ALICE.userId,
});

describe.each<QueueMode>(['embedded', 'bullmq'])('chat outbox (%s)', (mode) => {
  let fake: FakeOpenAi;
  /** Every gateway a test started, stopped in reverse order; the first one owns home and keys. */
  const started: TestGateway[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    await fake.close();
  });
  afterEach(async () => {
    const [owner, ...others] = started.splice(0);
    for (const gw of others.reverse()) await gw.stop();
    await owner?.close();
    fake.reset();
  });

  const env = () => ({
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_API_KEY: 'sk-test-0123456789abcdef',
    HERMES_MODEL: 'fake-model',
  });

  async function start(
    options: { adapter?: TestAdapter; reuse?: TestGateway; workers?: boolean; role?: 'worker' } = {},
  ): Promise<TestGateway> {
    const gw = await startTestGateway({
      mode,
      env: env(),
      yaml: ACCESS_YAML,
      ...(options.adapter !== undefined ? { adapters: [options.adapter] } : {}),
      ...(options.workers !== undefined ? { workers: options.workers } : {}),
      ...(options.role !== undefined ? { role: options.role } : {}),
      ...(options.reuse !== undefined ? { home: options.reuse.home, workdir: options.reuse.workdir } : {}),
    });
    if (options.reuse === undefined) started.unshift(gw);
    else started.push(gw);
    return gw;
  }

  /** Stops a gateway early (it stays in `started` for the owner's cleanup only if it owns the home). */
  async function stop(gw: TestGateway): Promise<void> {
    await gw.stop();
    const index = started.indexOf(gw);
    if (index > 0) started.splice(index, 1);
  }

  it('completes the entry of a delivered answer, and a sweep or a restart never sends it again', async () => {
    const adapter = createTestAdapter();
    const gw = await start({ adapter });
    fake.script({ content: 'Delivered once.' });
    await adapter.say({ ...ALICE, text: 'hi' });
    await waitFor(() => adapter.texts(ALICE.chatId).includes('Delivered once.'));
    await waitFor(async () => (await gw.gateway.store.listOutbox({ platform: 'test' })).length === 0);
    const [entry] = (gw.gateway.store as SqliteGatewayStore).db
      .prepare('SELECT id, outcome, attempts FROM outbox')
      .all();
    expect(entry).toMatchObject({ outcome: 'delivered', attempts: 0 });

    await gw.gateway.control?.sweepOutbox({ minAgeMs: 0 });
    // The gateway died after sending but before completing the entry: the receipts stop a resend.
    (gw.gateway.store as SqliteGatewayStore).db
      .prepare('UPDATE outbox SET completed_at = NULL, outcome = NULL')
      .run();
    await gw.gateway.control?.sweepOutbox({ minAgeMs: 0 });
    expect(adapter.texts(ALICE.chatId).filter((t) => t === 'Delivered once.')).toHaveLength(1);
    expect(await gw.gateway.store.listOutbox({ platform: 'test' })).toEqual([]);

    await stop(gw);
    const again = createTestAdapter();
    const restarted = await start({ adapter: again, reuse: gw });
    await restarted.gateway.control?.sweepOutbox({ minAgeMs: 0 });
    expect(again.sent).toHaveLength(0);
  });

  it('delivers an answer and a failure notice recorded while the gateway was away, once each', async () => {
    const first = await start({ adapter: createTestAdapter() });
    await stop(first);
    // What a worker wrote just before it published the events nobody received.
    const store = createSqliteGatewayStore({ path: join(first.home, 'state.db'), logger: silentLogger });
    const origin = { platform: 'test', chatType: 'dm', chatId: ALICE.chatId, replyToMessageId: 'm-42' };
    const base = { platform: 'test', sessionKey: ALICE_SESSION, origin, eventIds: ['test:e-42'] };
    await store.enqueueOutbox({
      ...base,
      id: outboxId('final', 'turn-a'),
      turnId: 'turn-a',
      kind: 'final',
      text: 'The answer you missed.',
    });
    await store.enqueueOutbox({
      ...base,
      id: outboxId('failed', 'turn-b'),
      turnId: 'turn-b',
      kind: 'failed',
      text: 'The model could not be reached.',
    });
    await store.close();

    const adapter = createTestAdapter();
    const gw = await start({ adapter, reuse: first });
    await waitFor(() => adapter.sent.length === 2);
    await gw.gateway.control?.sweepOutbox({ minAgeMs: 0 });
    expect(adapter.texts(ALICE.chatId)).toEqual([
      'The answer you missed.',
      '⚠️ The model could not be reached.',
    ]);
    expect(adapter.sent[0]?.replyToMessageId).toBe('m-42');
    expect(await gw.gateway.store.getOutbox('final:turn-a')).toMatchObject({
      attempts: 1,
      completed: { outcome: 'delivered' },
    });
    expect((await gw.gateway.store.getOutbox('failed:turn-b'))?.completed?.outcome).toBe('delivered');
  });

  it.runIf(mode === 'bullmq')(
    'delivers an answer a worker finished while the chat gateway was stopped, exactly once',
    async () => {
      // The chat gateway takes the message; no worker runs in its process.
      const chat = createTestAdapter();
      const gateway = await start({ adapter: chat, workers: false });
      expect(await chat.say({ ...ALICE, text: 'what is 6 x 7?' })).toStrictEqual({ status: 'accepted' });
      const asked = chat.inbound[0]?.event;
      await stop(gateway);

      // A separate worker runs the turn and publishes the answer: nobody is listening.
      fake.script({ content: 'It is 42.' });
      const worker = await start({ role: 'worker', reuse: gateway });
      await waitFor(async () => (await worker.gateway.store.listOutbox({ platform: 'test' })).length === 1);
      expect(fake.requests).toHaveLength(1);

      // The chat gateway comes back with a fresh adapter: its sweep delivers the answer.
      const back = createTestAdapter();
      const restarted = await start({ adapter: back, workers: false, reuse: gateway });
      await waitFor(() => back.texts(ALICE.chatId).includes('It is 42.'));
      await restarted.gateway.control?.sweepOutbox({ minAgeMs: 0 });
      expect(back.texts(ALICE.chatId)).toEqual(['It is 42.']);
      expect(back.sent[0]?.replyToMessageId).toBe(asked?.kind === 'message' ? asked.messageId : '');
      expect(await restarted.gateway.store.listOutbox({ platform: 'test' })).toEqual([]);
      expect(chat.texts(ALICE.chatId)).toEqual([]);
    },
  );

  it.runIf(mode === 'bullmq')(
    'shows the approval prompt of a turn a worker parked while the chat gateway was stopped',
    async () => {
      const chat = createTestAdapter();
      const gateway = await start({ adapter: chat, workers: false });
      mkdirSync(join(gateway.workdir, 'build'));
      await chat.say({ ...ALICE, text: 'clean the build folder' });
      await stop(gateway);

      // A worker runs the turn: the command needs approval, the turn parks, nobody hears of it.
      fake.script(
        {
          content: '',
          toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command: 'rm -rf build' }) }],
        },
        { content: 'Deleted the build folder.' },
      );
      const worker = await start({ role: 'worker', reuse: gateway });
      await waitFor(async () => (await worker.gateway.store.listOutbox({ platform: 'test' })).length === 1);
      const [entry] = await worker.gateway.store.listOutbox({ platform: 'test' });
      expect(entry).toMatchObject({ kind: 'parked', prompt: { reason: 'approval' } });

      // The chat gateway comes back: its sweep shows the prompt, once, and the click resumes the turn.
      const back = createTestAdapter();
      const restarted = await start({ adapter: back, workers: false, reuse: gateway });
      await waitFor(() => back.prompts.length === 1);
      await restarted.gateway.control?.sweepOutbox({ minAgeMs: 0 });
      expect(back.prompts).toHaveLength(1);
      const prompt = back.prompts[0]!;
      expect(prompt.text).toContain('rm -rf build');
      expect(await restarted.gateway.store.listOutbox({ platform: 'test' })).toEqual([]);
      expect(
        await back.press({
          messageId: prompt.messageId,
          userId: 'alice',
          userName: 'Alice',
          label: '✅ Allow once',
        }),
      ).toMatchObject({ status: 'answered' });
      await waitFor(() => back.texts(ALICE.chatId).includes('Deleted the build folder.'));
      expect(existsSync(join(gateway.workdir, 'build'))).toBe(false);
    },
  );

  it('does not show a prompt from the outbox whose park is no longer waiting', async () => {
    const first = await start({ adapter: createTestAdapter() });
    await stop(first);
    const store = createSqliteGatewayStore({ path: join(first.home, 'state.db'), logger: silentLogger });
    await store.enqueueOutbox({
      platform: 'test',
      sessionKey: ALICE_SESSION,
      origin: { platform: 'test', chatType: 'dm', chatId: ALICE.chatId },
      eventIds: ['test:e-7'],
      id: outboxId('parked', 'park-gone'),
      turnId: 'turn-answered-meanwhile',
      kind: 'parked',
      text: '',
      prompt: { reason: 'clarify', parkId: 'park-gone', payload: { question: 'Which folder?', choices: [] } },
    });
    await store.close();

    const adapter = createTestAdapter();
    const gw = await start({ adapter, reuse: first });
    await waitFor(async () => (await gw.gateway.store.listOutbox({ platform: 'test' })).length === 0);
    expect(adapter.sent).toHaveLength(0);
    expect(adapter.prompts).toHaveLength(0);
    expect((await gw.gateway.store.getOutbox('parked:park-gone'))?.completed?.outcome).toBe('delivered');
  });
});
