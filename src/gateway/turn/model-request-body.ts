import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ModelRequest } from './stream-completion.js';

/** UTF-8 JSON of each tool definition object, kept while the object lives (the registry memoises them). */
const toolJson = new WeakMap<ChatCompletionTool, Buffer>();

const COMMA = Buffer.from(',');
const TOOLS_OPEN = Buffer.from(',"tools":[');
const TOOLS_CLOSE = Buffer.from(']');
const STREAM_TAIL = Buffer.from(',"stream":true,"stream_options":{"include_usage":true}}');

/**
 * The JSON body of a streaming chat-completion request, as UTF-8 bytes: the same JSON that
 * `JSON.stringify` gives for `{ model, messages, tools, stream: true, stream_options: {
 * include_usage: true } }`, but each tool definition is serialised and encoded once per
 * definition object instead of on every model call. A turn's tool schemas are most of its
 * request (≈ 12 KB for the API-server toolset); only the model name and messages change.
 */
export function modelRequestBody(request: ModelRequest): Buffer {
  const parts: Buffer[] = [
    Buffer.from(`{"model":${JSON.stringify(request.model)},"messages":${JSON.stringify(request.messages)}`),
  ];
  if (request.tools.length > 0) {
    parts.push(TOOLS_OPEN);
    request.tools.forEach((tool, index) => {
      if (index > 0) parts.push(COMMA);
      parts.push(encodedTool(tool));
    });
    parts.push(TOOLS_CLOSE);
  }
  parts.push(STREAM_TAIL);
  return Buffer.concat(parts);
}

function encodedTool(tool: ChatCompletionTool): Buffer {
  let json = toolJson.get(tool);
  if (json === undefined) {
    json = Buffer.from(JSON.stringify(tool));
    toolJson.set(tool, json);
  }
  return json;
}
