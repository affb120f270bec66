import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { modelRequestBody } from '../../../src/gateway/turn/model-request-body.js';
import type { ModelRequest } from '../../../src/gateway/turn/stream-completion.js';

const tool = (name: string, description: string): ChatCompletionTool => ({
  type: 'function',
  function: {
    name,
    description,
    parameters: { type: 'object', properties: { path: { type: 'string', description: 'a "quoted" path' } } },
  },
});

/** What the openai SDK would have sent for the same request (its JSON encoder). */
const sdkJson = (request: ModelRequest) =>
  JSON.stringify({
    model: request.model,
    messages: request.messages,
    ...(request.tools.length > 0 ? { tools: request.tools } : {}),
    stream: true,
    stream_options: { include_usage: true },
  });

describe('modelRequestBody', () => {
  it('is byte for byte the JSON the SDK would send, tools included', () => {
    const request: ModelRequest = {
      model: 'vendor/model "x"',
      messages: [
        { role: 'system', content: 'You are Hermes.\nLine two\ttab' },
        { role: 'user', content: '你好 — 👋 \u2028 "quote" \\ back' },
      ],
      tools: [tool('read_file', 'Reads a file'), tool('write_file', 'Writes ✍ a file')],
    };
    const body = modelRequestBody(request);
    expect(body.toString('utf8')).toBe(sdkJson(request));
    expect(JSON.parse(body.toString('utf8'))).toEqual(JSON.parse(sdkJson(request)));
  });

  it('leaves the tools key out when there are none', () => {
    const request: ModelRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [] };
    const text = modelRequestBody(request).toString('utf8');
    expect(text).toBe(sdkJson(request));
    expect(JSON.parse(text)).not.toHaveProperty('tools');
  });

  it('reuses a tool object across calls and still follows the messages of each call', () => {
    const tools = [tool('todo', 'Keeps a list')];
    const first = modelRequestBody({ model: 'm', messages: [{ role: 'user', content: 'one' }], tools });
    const second = modelRequestBody({
      model: 'm',
      messages: [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'two' },
      ],
      tools,
    });
    expect(JSON.parse(first.toString('utf8')).messages).toHaveLength(1);
    expect(JSON.parse(second.toString('utf8')).messages).toHaveLength(2);
    expect(JSON.parse(second.toString('utf8')).tools).toEqual(tools);
  });
});
