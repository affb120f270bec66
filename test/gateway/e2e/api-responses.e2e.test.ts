import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type QueueMode, startTestGateway, type TestGateway } from './gateway-kit.js';

const modes: QueueMode[] = ['embedded', 'bullmq'];

describe.each(modes)('POST /v1/responses (%s queue)', (mode) => {
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

  async function start(): Promise<TestGateway> {
    gw = await startTestGateway({
      mode,
      env: {
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'sk-test-key-0123456789',
        HERMES_MODEL: 'fake-model',
      },
    });
    return gw;
  }

  it('answers in the Responses shape and continues a conversation with previous_response_id', async () => {
    const client = (await start()).client();
    fake.script({ content: 'Hello, Ann.' }, { content: 'Your name is Ann.' });
    const first = await client.responses.create({
      model: 'fake-model',
      instructions: 'Be brief.',
      input: 'My name is Ann. Say hello.',
    });
    expect(first.object).toBe('response');
    expect(first.status).toBe('completed');
    expect(first.id).toMatch(/^resp_/);
    expect(first.output_text).toBe('Hello, Ann.');
    expect(first.output[0]).toMatchObject({ type: 'message', role: 'assistant' });
    const sentFirst = fake.requests[0]?.body as
      | { messages?: { role: string; content: unknown }[] }
      | undefined;
    expect(JSON.stringify(sentFirst?.messages)).toContain('Be brief.');

    const second = await client.responses.create({
      model: 'fake-model',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is my name?' }] }],
      previous_response_id: first.id,
    });
    expect(second.output_text).toBe('Your name is Ann.');
    expect(second.previous_response_id).toBe(first.id);
    // The gateway kept the conversation: the second model call saw the first exchange.
    const sentSecond = fake.requests[1]?.body as
      | { messages?: { role: string; content: unknown }[] }
      | undefined;
    const contents = JSON.stringify(sentSecond?.messages);
    expect(contents).toContain('My name is Ann. Say hello.');
    expect(contents).toContain('Hello, Ann.');
  });

  it('streams Responses events ending in response.completed', async () => {
    const client = (await start()).client();
    fake.script({ content: 'A streamed answer in several pieces.' });
    const stream = await client.responses.create({ model: 'fake-model', input: 'stream it', stream: true });
    const types: string[] = [];
    let text = '';
    let completed = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response.output_text;
    }
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.completed');
    expect(text).toBe('A streamed answer in several pieces.');
    expect(completed).toBe('A streamed answer in several pieces.');
  });

  it('refuses a foreign previous_response_id and a last item not from the user', async () => {
    const { baseURL } = await start();
    const post = (body: unknown) =>
      fetch(`${baseURL}/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post({ input: 'hi', previous_response_id: 'resp_abc' })).status).toBe(400);
    expect((await post({ input: [{ role: 'assistant', content: 'hi' }] })).status).toBe(400);
    expect(fake.requests).toHaveLength(0);
  });
});
