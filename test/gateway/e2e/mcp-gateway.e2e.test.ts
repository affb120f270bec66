import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../../src/platforms/test-adapter/test-adapter-types.js';
import { type FakeMcpHttp, startFakeMcpHttp } from '../../fakes/fake-mcp/fake-mcp-server.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { useFakeMcpStdio } from '../../tools/mcp/mcp-helpers.js';
import { type QueueMode, startTestGateway, type TestGateway, waitFor } from './gateway-kit.js';

const ALICE = { chatId: 'c-alice', userId: 'alice', userName: 'Alice' };
const ADMIN = { chatId: 'c-admin', userId: 'admin', userName: 'Admin' };
const ACCESS = { gateway: { allowed_users: ['test:alice', 'test:admin'], admin_users: ['test:admin'] } };

function sent(
  fake: FakeOpenAi,
  n: number,
): { tools: string[]; messages: { role: string; content: string }[] } {
  const body = fake.requests[n]?.body as
    | { tools?: { function: { name: string } }[]; messages?: { role: string; content: string }[] }
    | undefined;
  return { tools: (body?.tools ?? []).map((t) => t.function.name), messages: body?.messages ?? [] };
}

function call(name: string, args: Record<string, unknown>) {
  return { content: '', toolCalls: [{ name, arguments: JSON.stringify(args) }] };
}

async function readyz(
  gw: TestGateway,
): Promise<{ status: number; checks: { name: string; ok: boolean; reason?: string }[] }> {
  const response = await fetch(gw.baseURL.replace(/\/v1$/, '/readyz'));
  const body = (await response.json()) as { checks: { name: string; ok: boolean; reason?: string }[] };
  return { status: response.status, checks: body.checks };
}

const stdioServer = useFakeMcpStdio();
let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterAll(async () => {
  await fake.close();
});

function modelEnv(): Record<string, string> {
  return {
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_API_KEY: 'sk-test-0123456789abcdef',
    HERMES_MODEL: 'fake-model',
  };
}

describe.each<QueueMode>(['embedded', 'bullmq'])('MCP tools in a whole gateway (%s)', (mode) => {
  let gw: TestGateway | undefined;
  let adapter: TestAdapter;
  let http: FakeMcpHttp;

  afterEach(async () => {
    await gw?.close();
    gw = undefined;
    await http?.close();
    fake.reset();
  });

  async function start(): Promise<TestGateway> {
    http = await startFakeMcpHttp();
    adapter = createTestAdapter();
    gw = await startTestGateway({
      mode,
      env: modelEnv(),
      yaml: stringify({ ...ACCESS, mcp_servers: { fake: stdioServer(), remote: { url: http.url } } }),
      adapters: [adapter],
    });
    const started = gw;
    await waitFor(() => started.gateway.runtime.mcp.states().every((s) => s.status === 'connected'));
    return started;
  }

  it('the model calls a stdio and an HTTP MCP tool, and the answer reaches the chat', async () => {
    const started = await start();
    fake.script(call('mcp__fake__echo', { text: 'hello' }), call('mcp__remote__add', { a: 20, b: 22 }), {
      content: 'The server said hello, and 42.',
    });
    await adapter.say({ ...ALICE, text: 'use the tools' });
    await waitFor(() => adapter.texts(ALICE.chatId).includes('The server said hello, and 42.'));
    const first = sent(fake, 0);
    expect(first.tools).toEqual(expect.arrayContaining(['mcp__fake__echo', 'mcp__remote__add', 'terminal']));
    const results = sent(fake, 2)
      .messages.filter((m) => m.role === 'tool')
      .map((m) => m.content);
    expect(results).toEqual(['echo: hello', '42']);
    const ready = await readyz(started);
    expect(ready.checks).toEqual(
      expect.arrayContaining([
        { name: 'mcp:fake', ok: true, reason: expect.stringMatching(/^connected \(stdio\), \d+ tools$/) },
        { name: 'mcp:remote', ok: true, reason: expect.stringMatching(/^connected \(http\), \d+ tools$/) },
      ]),
    );
  });

  it('a tool marked destructive waits for a human: Allow once runs it with the shown arguments', async () => {
    await start();
    fake.script(call('mcp__fake__delete_item', { id: 'item-42' }), { content: 'Deleted it.' });
    await adapter.say({ ...ALICE, text: 'delete item-42' });
    await waitFor(() => adapter.prompts.length === 1);
    const prompt = adapter.prompts.at(-1);
    if (prompt === undefined) throw new Error('no prompt');
    expect(prompt.text).toContain('MCP tool');
    expect(prompt.text).toContain('mcp__fake__delete_item');
    expect(prompt.text).toContain('item-42');
    expect(fake.requests).toHaveLength(1);
    await adapter.press({
      messageId: prompt.messageId,
      userId: 'alice',
      userName: 'Alice',
      label: '✅ Allow once',
    });
    await waitFor(() => adapter.texts(ALICE.chatId).includes('Deleted it.'));
    const results = sent(fake, 1)
      .messages.filter((m) => m.role === 'tool')
      .map((m) => m.content);
    expect(results).toEqual(['deleted item-42']);
  });
});

describe('MCP servers and the gateway’s start, commands and toolsets', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
    fake.reset();
  });

  it('a dead and a slow server do not hold up the start; /readyz shows them and chats still work', async () => {
    const adapter = createTestAdapter();
    const began = Date.now();
    gw = await startTestGateway({
      mode: 'embedded',
      env: modelEnv(),
      yaml: stringify({
        ...ACCESS,
        mcp_servers: {
          // Accepts the connection but never answers (a server stuck at start).
          slow: {
            command: process.execPath,
            args: ['-e', 'setInterval(() => {}, 1000)'],
            connect_timeout: 30,
          },
          // Nothing listens there.
          dead: { url: 'http://127.0.0.1:9/mcp', connect_timeout: 2 },
        },
      }),
      adapters: [adapter],
    });
    expect(Date.now() - began).toBeLessThan(10_000);
    const started = gw;
    await waitFor(
      () => started.gateway.runtime.mcp.states().find((s) => s.name === 'dead')?.status === 'failed',
    );
    const ready = await readyz(started);
    expect(ready.status).toBe(200);
    const byName = new Map(ready.checks.map((c) => [c.name, c.reason ?? '']));
    expect(byName.get('mcp:slow')).toMatch(/^connecting \(stdio\)/);
    expect(byName.get('mcp:dead')).toMatch(/^failed \(http\): .*attempt \d+ in \d+ s/);
    fake.script({ content: 'Still here.' });
    await adapter.say({ ...ALICE, text: 'hi' });
    await waitFor(() => adapter.texts(ALICE.chatId).includes('Still here.'));
  });

  it('/reload-mcp (admins) reconnects; /tools shows the MCP toolset and /tools disable|enable mcp-x work', async () => {
    // Named like a real chat platform, so its preset (hermes-telegram) is the default.
    const adapter = createTestAdapter({ platform: 'telegram' });
    gw = await startTestGateway({
      mode: 'embedded',
      env: modelEnv(),
      yaml: stringify({
        gateway: { allowed_users: ['telegram:alice', 'telegram:admin'], admin_users: ['telegram:admin'] },
        mcp_servers: { fake: stdioServer({ tools: { include: ['echo'] } }) },
      }),
      adapters: [adapter],
    });
    const started = gw;
    await waitFor(() => started.gateway.runtime.mcp.states()[0]?.status === 'connected');
    await adapter.say({ ...ALICE, text: '/reload-mcp' });
    await waitFor(() => adapter.texts(ALICE.chatId).length === 1);
    expect(adapter.texts(ALICE.chatId)[0]).not.toContain('Reconnected');
    await adapter.say({ ...ADMIN, text: '/reload-mcp' });
    await waitFor(() => adapter.texts(ADMIN.chatId).some((t) => t.startsWith('Reconnected MCP servers')));
    expect(adapter.texts(ADMIN.chatId).at(-1)).toMatch(/fake: connected \(stdio\), 1 tool$/);

    await adapter.say({ ...ADMIN, text: '/tools' });
    await waitFor(() => adapter.texts(ADMIN.chatId).some((t) => t.startsWith('Toolsets:')));
    const listing = adapter.texts(ADMIN.chatId).find((t) => t.startsWith('Toolsets:')) ?? '';
    expect(listing).toContain('hermes-telegram, mcp-fake (default)');
    expect(listing).toContain('mcp__fake__echo');

    await adapter.say({ ...ADMIN, text: '/tools disable mcp-fake' });
    await waitFor(() => adapter.texts(ADMIN.chatId).some((t) => t.startsWith('Disabled mcp-fake')));
    fake.script({ content: 'no mcp' });
    await adapter.say({ ...ADMIN, text: 'hello' });
    await waitFor(() => adapter.texts(ADMIN.chatId).includes('no mcp'));
    expect(sent(fake, 0).tools).not.toContain('mcp__fake__echo');

    await adapter.say({ ...ADMIN, text: '/tools enable mcp-fake' });
    await waitFor(() => adapter.texts(ADMIN.chatId).some((t) => t.startsWith('Enabled mcp-fake')));
    fake.script({ content: 'mcp again' });
    await adapter.say({ ...ADMIN, text: 'hello again' });
    await waitFor(() => adapter.texts(ADMIN.chatId).includes('mcp again'));
    expect(sent(fake, 1).tools).toContain('mcp__fake__echo');
  });
});
