import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type QueueMode, REDIS_URL, startTestGateway, type TestGateway, waitFor } from './gateway-kit.js';

const modes: QueueMode[] = ['embedded', 'bullmq'];

describe.each(modes)('gateway through the API server (%s queue)', (mode) => {
  let fake: FakeOpenAi;
  let gw: TestGateway;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    await fake.close();
  });
  afterEach(async () => {
    await gw?.close();
    fake.reset();
    fake.respond = () => ({ content: 'ok' });
  });

  async function start(env: Record<string, string> = {}, yaml?: string): Promise<TestGateway> {
    gw = await startTestGateway({
      mode,
      env: {
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'sk-test-key-0123456789',
        HERMES_MODEL: 'fake-model',
        ...env,
      },
      ...(yaml !== undefined ? { yaml } : {}),
    });
    return gw;
  }

  it('answers a plain question', async () => {
    await start();
    fake.script({ content: 'Hello from the agent.' });
    const completion = await gw.client().chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    expect(completion.choices[0]?.message.content).toBe('Hello from the agent.');
    expect(completion.object).toBe('chat.completion');
    expect(gw.gateway.queue.kind).toBe(mode);
    const sent = fake.requests[0]?.body as {
      messages: { role: string; content: unknown }[];
      tools?: unknown[];
    };
    expect(sent.messages[0]?.role).toBe('system');
    expect(sent.messages.at(-1)).toMatchObject({ role: 'user', content: 'Say hello' });
    const toolNames = (sent.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(toolNames).toContain('read_file');
    expect(toolNames).not.toContain('clarify');
  });

  it('runs a tool loop and returns the final answer', async () => {
    await start();
    writeFileSync(join(gw.workdir, 'notes.txt'), 'the secret word is pineapple\n');
    fake.script(
      { content: '', toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }] },
      { content: 'The word is pineapple.' },
    );
    const completion = await gw.client().chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'What is the secret word in notes.txt?' }],
    });
    expect(completion.choices[0]?.message.content).toBe('The word is pineapple.');
    const second = fake.requests[1]?.body as { messages: { role: string; content: string | null }[] };
    const toolMessage = second.messages.find((m) => m.role === 'tool');
    expect(toolMessage?.content).toContain('pineapple');
  });

  it('streams the answer as chat.completion.chunk events', async () => {
    await start();
    fake.script({ content: 'A streamed answer that spans several chunks of text.' });
    const stream = await gw.client().chat.completions.create({
      model: 'fake-model',
      stream: true,
      messages: [{ role: 'user', content: 'stream please' }],
    });
    let text = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice === undefined) continue;
      text += choice.delta.content ?? '';
      finish = choice.finish_reason ?? finish;
    }
    expect(text).toBe('A streamed answer that spans several chunks of text.');
    expect(finish).toBe('stop');
  });

  it.runIf(mode === 'bullmq')(
    'answers the turns it runs itself without a trip through Redis pub/sub',
    async () => {
      await start();
      const spy = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      const crossed: string[] = [];
      spy.on('pmessage', (_pattern: string, channel: string) => crossed.push(channel));
      try {
        await spy.psubscribe(`${gw.prefix}:events:*`);
        writeFileSync(join(gw.workdir, 'notes.txt'), 'the secret word is pineapple\n');
        fake.script(
          {
            content: '',
            toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }],
          },
          { content: 'The word is pineapple.' },
        );
        const stream = await gw.client().chat.completions.create({
          model: 'fake-model',
          stream: true,
          messages: [{ role: 'user', content: 'What is the secret word in notes.txt?' }],
        });
        let text = '';
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
        expect(text).toBe('The word is pineapple.');

        // The spy works: an event nobody here claimed does cross Redis.
        await gw.gateway.bus.publish('platform:api_server', { type: 'final', eventIds: ['api:elsewhere'] });
        await waitFor(() => crossed.length > 0);
        expect(crossed).toEqual([`${gw.prefix}:events:platform:api_server`]);
      } finally {
        spy.disconnect();
      }
    },
  );

  it('denies a dangerous command at once on this unattended platform, and nothing runs', async () => {
    await start();
    writeFileSync(join(gw.workdir, 'keep.txt'), 'precious');
    fake.script(
      {
        content: '',
        toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command: 'rm -rf keep.txt' }) }],
      },
      { content: 'I could not delete it.' },
    );
    const completion = await gw.client().chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'delete keep.txt' }],
    });
    expect(completion.choices[0]?.message.content).toBe('I could not delete it.');
    expect(existsSync(join(gw.workdir, 'keep.txt'))).toBe(true);
    const second = fake.requests[1]?.body as { messages: { role: string; content: string | null }[] };
    const toolMessage = second.messages.find((m) => m.role === 'tool');
    expect(toolMessage?.content).toMatch(/unattended/i);
    expect(readFileSync(join(gw.workdir, 'keep.txt'), 'utf8')).toBe('precious');
  });

  it('runs a dangerous command when approvals.unattended_mode is approve', async () => {
    await start({}, 'approvals:\n  unattended_mode: approve\n');
    writeFileSync(join(gw.workdir, 'scratch.txt'), 'temporary');
    fake.script(
      {
        content: '',
        toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command: 'rm -rf scratch.txt' }) }],
      },
      { content: 'Removed it.' },
    );
    const completion = await gw.client().chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'remove scratch.txt' }],
    });
    expect(completion.choices[0]?.message.content).toBe('Removed it.');
    expect(existsSync(join(gw.workdir, 'scratch.txt'))).toBe(false);
  });

  it('keeps a server-side conversation with the session header', async () => {
    await start();
    fake.script({ content: 'Nice to meet you, Ada.' }, { content: 'Your name is Ada.' });
    const client = gw.client({ headers: { 'X-Hermes-Session-Id': 'conv-42' } });
    await client.chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'I am Ada' }],
    });
    await client.chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'Who am I?' }],
    });
    const second = fake.requests[1]?.body as { messages: { role: string; content: string | null }[] };
    const contents = second.messages.map((m) => m.content);
    expect(contents).toContain('I am Ada');
    expect(contents).toContain('Nice to meet you, Ada.');
  });

  it('without a header each request stands alone, with the history the client sent', async () => {
    await start();
    fake.script({ content: 'first' }, { content: 'second' });
    await gw
      .client()
      .chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'one' }] });
    await gw.client().chat.completions.create({
      model: 'fake-model',
      messages: [
        { role: 'user', content: 'earlier question' },
        { role: 'assistant', content: 'earlier answer' },
        { role: 'user', content: 'two' },
      ],
    });
    const second = fake.requests[1]?.body as { messages: { role: string; content: string | null }[] };
    const contents = second.messages.map((m) => m.content);
    expect(contents).not.toContain('one');
    expect(contents).toEqual(expect.arrayContaining(['earlier question', 'earlier answer', 'two']));
  });

  it('reports health, readiness and metrics', async () => {
    await start();
    fake.script({ content: 'counted' });
    await gw
      .client()
      .chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'count me' }] });
    const origin = gw.baseURL.replace(/\/v1$/, '');
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    const ready = await fetch(`${origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready' });
    const metrics = await (await fetch(`${origin}/metrics`)).text();
    expect(metrics).toMatch(/hermes_turns_total\{outcome="final"\} 1/);
    expect(metrics).toContain('hermes_queue_depth');
    expect(metrics).toContain('hermes_nodejs_eventloop_lag_seconds');
  });
});

describe('API server edges (embedded queue)', () => {
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
  });

  it('requires the bearer key when one is set', async () => {
    gw = await startTestGateway({
      mode: 'embedded',
      env: {
        OPENAI_BASE_URL: fake.baseURL,
        HERMES_MODEL: 'fake-model',
        API_SERVER_KEY: 'correct-horse-battery',
      },
    });
    fake.script({ content: 'authorised' });
    await expect(
      gw
        .client({ apiKey: 'wrong' })
        .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 401 });
    const ok = await gw
      .client({ apiKey: 'correct-horse-battery' })
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(ok.choices[0]?.message.content).toBe('authorised');
  });

  it('starts without a model and explains what is missing', async () => {
    gw = await startTestGateway({ mode: 'embedded' });
    const error = await gw
      .client()
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503 });
    expect(String((error as Error).message)).toContain('HERMES_MODEL');
    const ready = await fetch(gw.baseURL.replace(/\/v1$/, '/readyz'));
    expect(ready.status).toBe(503);
    expect(JSON.stringify(await ready.json())).toContain('HERMES_MODEL');
  });

  it('rejects malformed requests with 400 and an OpenAI-style error', async () => {
    gw = await startTestGateway({
      mode: 'embedded',
      env: { OPENAI_BASE_URL: fake.baseURL, HERMES_MODEL: 'm' },
    });
    const url = `${gw.baseURL}/chat/completions`;
    for (const body of [
      '{not json',
      JSON.stringify({ messages: [] }),
      JSON.stringify({ messages: [{ role: 'assistant', content: 'hi' }] }),
    ]) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(400);
      const json = (await response.json()) as { error?: { message?: string } };
      expect(typeof json.error?.message).toBe('string');
    }
  });

  it('refuses to listen beyond loopback without a key', async () => {
    await expect(
      startTestGateway({ mode: 'embedded', env: { HERMES_HTTP_HOST: '0.0.0.0' } }),
    ).rejects.toThrow(/API_SERVER_KEY/);
  });

  it('turns a model that stays down into a clear 502', async () => {
    gw = await startTestGateway({
      mode: 'embedded',
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', HERMES_MODEL: 'm' },
      yaml: 'model:\n  timeout_ms: 2000\n',
    });
    const error = await gw
      .client()
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502 });
  });
});
