import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../../src/platforms/test-adapter/test-adapter-types.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { startTestGateway, type TestGateway, waitFor } from '../e2e/gateway-kit.js';

const YAML = [
  'gateway:',
  '  allowed_users: ["test:admin", "test:alice"]',
  '  admin_users: ["test:admin"]',
  'platforms:',
  '  webhook:',
  '    enabled: true',
  '    routes:',
  '      alerts:',
  '        insecure: true',
  '        deliver: { platform: test, chat_id: home }',
].join('\n');

const OPS = { chatId: 'g-ops', chatType: 'group', threadId: '5' } as const;

describe('webhook delivery to the home channel (chat_id: home) through the real gateway', () => {
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
  });

  async function start(): Promise<TestGateway> {
    adapter = createTestAdapter();
    gw = await startTestGateway({
      mode: 'embedded',
      env: {
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'sk-test-0123456789abcdef',
        HERMES_MODEL: 'fake-model',
      },
      yaml: YAML,
      adapters: [adapter],
    });
    return gw;
  }

  /** Posts an alert and waits until its run and delivery are settled; returns the run record. */
  async function alert(kit: TestGateway, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const origin = kit.baseURL.replace(/\/v1$/, '');
    const posted = await fetch(`${origin}/webhooks/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(posted.status).toBe(202);
    const { run_id: runId } = (await posted.json()) as { run_id: string };
    let run: Record<string, unknown> = {};
    await waitFor(async () => {
      run = (await (await fetch(`${origin}/webhooks/alerts/runs/${runId}`)).json()) as Record<
        string,
        unknown
      >;
      const delivery = (run['delivery'] as { status?: string } | undefined)?.status;
      return ['done', 'failed', 'delivery_failed'].includes(String(run['status'])) && delivery !== 'pending';
    });
    return run;
  }

  it('fails clearly while no home channel is set, then delivers to the chat set with /sethome', async () => {
    const kit = await start();
    fake.script({ content: 'Disk on db1 is 95% full.' });
    const before = await alert(kit, { alert: 'disk', host: 'db1' });
    expect(before).toMatchObject({
      status: 'delivery_failed',
      result: 'Disk on db1 is 95% full.',
      delivery: {
        status: 'failed',
        error: expect.stringContaining(
          'no home channel is set for test: send /sethome in the chat that should get these messages',
        ),
      },
    });
    expect(adapter.sent).toHaveLength(0);

    // A non-admin cannot make a group home; the admin can, from the thread that should get alerts.
    await adapter.say({ ...OPS, userId: 'alice', text: '/sethome' });
    await waitFor(() => adapter.texts(OPS.chatId).length === 1);
    expect(adapter.texts(OPS.chatId)[0]).toMatch(/^\/sethome is not available to you here/);
    await adapter.say({ ...OPS, userId: 'admin', text: '/sethome' });
    await waitFor(() => adapter.texts(OPS.chatId).length === 2);
    expect(adapter.texts(OPS.chatId)[1]).toMatch(/^🏠 This chat is now the home channel for test/);
    expect(await kit.gateway.store.getHomeChannel('test')).toMatchObject({
      chatId: 'g-ops',
      threadId: '5',
      setBy: 'admin',
    });

    fake.script({ content: 'Disk on db2 is 97% full.' });
    const after = await alert(kit, { alert: 'disk', host: 'db2' });
    expect(after).toMatchObject({ status: 'done', delivery: { status: 'delivered' } });
    const delivered = adapter.messages(OPS.chatId).at(-1);
    expect(delivered).toMatchObject({
      text: 'Disk on db2 is 97% full.',
      to: { chatId: 'g-ops', threadId: '5' },
    });
  });
});
