import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gatewayEventSchema } from '../../../src/gateway/events/gateway-event.js';
import { type FakeOpenAi, type RecordedRequest, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type QueueMode, startTestGateway, type TestGateway, waitFor } from './gateway-kit.js';

const modes: QueueMode[] = ['embedded', 'bullmq'];

/** The text of the last user message the model was sent. */
function lastUserText(request: RecordedRequest): string {
  const messages = request.body['messages'] as { role: string; content: unknown }[];
  const last = [...messages].reverse().find((message) => message.role === 'user');
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content);
}

describe.each(modes)('API server: each request answered on its own terms (%s queue)', (mode) => {
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

  async function start(yaml?: string): Promise<TestGateway> {
    gw = await startTestGateway({
      mode,
      env: {
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'sk-test-key-0123456789',
        HERMES_MODEL: 'fake-model',
      },
      ...(yaml !== undefined ? { yaml } : {}),
    });
    return gw;
  }

  async function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  it('parallel requests on one session each get the answer to their own message, one turn each', async () => {
    await start();
    fake.respond = (request) => ({ content: `echo: ${lastUserText(request)}`, delayMs: 20 });
    const answers = await Promise.all(
      Array.from({ length: 8 }, async (_, index) => {
        const response = await post(
          { messages: [{ role: 'user', content: `msg ${index}` }] },
          { 'x-hermes-session-id': 'shared-conversation' },
        );
        expect(response.status).toBe(200);
        const json = (await response.json()) as { choices: { message: { content: string } }[] };
        return json.choices[0]?.message.content;
      }),
    );
    expect(answers).toEqual(Array.from({ length: 8 }, (_, index) => `echo: msg ${index}`));
    // One model call per request: none was merged into another's turn.
    expect(fake.requests).toHaveLength(8);
    // They ran one after the other in one conversation: the last turn saw every earlier message.
    const lastCall = fake.requests.at(-1)?.body['messages'] as { role: string }[];
    expect(lastCall.filter((message) => message.role === 'user')).toHaveLength(8);
  });

  it('reports the turn’s real token usage, summed over its model calls', async () => {
    await start();
    fake.script(
      { content: '', toolCalls: [{ name: 'todo', arguments: JSON.stringify({ todos: [] }) }] },
      { content: 'done' },
    );
    const response = await post({ messages: [{ role: 'user', content: 'use a tool' }] });
    const json = (await response.json()) as { usage: Record<string, number> };
    // The fake model reports 10 prompt and 5 completion tokens per call; the turn made two.
    expect(json.usage).toEqual({ prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 });
  });

  it('streams usage as the last chunk when stream_options.include_usage is set', async () => {
    await start();
    fake.script({ content: 'streamed answer' });
    const stream = await gw.client().chat.completions.create({
      model: 'fake-model',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'count tokens' }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    for (const chunk of chunks.slice(0, -1)) expect(chunk.usage).toBeNull();

    fake.script({ content: 'no usage asked' });
    const plain = await gw.client().chat.completions.create({
      model: 'fake-model',
      stream: true,
      messages: [{ role: 'user', content: 'again' }],
    });
    for await (const chunk of plain) expect(chunk.usage).toBeUndefined();
  });

  it('refuses at once, with the reason, what the turn would reject — nothing is queued', async () => {
    await start();
    const image = (url: string) => ({ type: 'image_url', image_url: { url } });
    const cases: [unknown, RegExp][] = [
      [{ model: '', messages: [{ role: 'user', content: 'hi' }] }, /model.*must not be empty/],
      [
        {
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'look' },
                ...Array.from({ length: 9 }, () => image('https://x/a.png')),
              ],
            },
          ],
        },
        /9 image_url parts; at most 8/,
      ],
      [
        { messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, image('ftp://x/a.png')] }] },
        /http\(s\) URL or a data:image/,
      ],
      [{ user: 'u'.repeat(300), messages: [{ role: 'user', content: 'hi' }] }, /user/],
    ];
    for (const [body, reason] of cases) {
      const started = Date.now();
      const response = await post(body);
      expect(response.status).toBe(400);
      const json = (await response.json()) as { error: { message: string; type: string } };
      expect(json.error.type).toBe('invalid_request_error');
      expect(json.error.message).toMatch(reason);
      expect(Date.now() - started).toBeLessThan(10_000);
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('a failure of an item with an unusable origin reaches the platform’s listeners, not only the session', async () => {
    await start();
    const seen: unknown[] = [];
    const unsubscribe = await gw.gateway.bus.subscribe('platform:api_server', (event) => seen.push(event));
    try {
      await gw.gateway.queue.submit({
        sessionKey: 'agent:main:api_server:dm:broken',
        eventId: 'api:broken-origin',
        kind: 'message',
        text: 'hi',
        payload: { platform: 'api_server', chatType: 'dm', chatId: 'broken', unattended: true, model: '' },
        receivedAt: Date.now(),
        solo: true,
      });
      await waitFor(() => seen.length > 0);
      const event = gatewayEventSchema.parse(seen[0]);
      expect(event).toMatchObject({
        type: 'failed',
        code: 'invalid_request',
        eventIds: ['api:broken-origin'],
      });
    } finally {
      await unsubscribe();
    }
  });

  it.runIf(mode === 'embedded')('answers body and method mistakes with what to send instead', async () => {
    await start('platforms:\n  api_server:\n    max_body_bytes: 2048\n');
    const noType = await fetch(`${gw.baseURL}/chat/completions`, {
      method: 'POST',
      body: new Blob([JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] })]),
    });
    expect(noType.status).toBe(415);
    expect(((await noType.json()) as { error: { message: string } }).error.message).toContain(
      'Content-Type: application/json',
    );
    const plain = await post('{"messages":[]}', { 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
    expect(((await plain.json()) as { error: { code: string } }).error.code).toBe('unsupported_media_type');

    const getCompletions = await fetch(`${gw.baseURL}/chat/completions`);
    expect(getCompletions.status).toBe(405);
    expect(getCompletions.headers.get('allow')).toBe('POST');
    const postModels = await fetch(`${gw.baseURL}/models`, { method: 'POST' });
    expect(postModels.status).toBe(405);
    expect(postModels.headers.get('allow')).toBe('GET, HEAD');

    const big = await post({ messages: [{ role: 'user', content: 'x'.repeat(4096) }] });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { message: string } }).error.message).toContain(
      'platforms.api_server.max_body_bytes',
    );
    const empty = await post('');
    expect(empty.status).toBe(400);
    const broken = await post('{"messages": [');
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { message: string } }).error.message).toContain(
      'not valid JSON',
    );
    expect(fake.requests).toHaveLength(0);
  });
});
