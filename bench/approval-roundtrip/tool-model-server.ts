import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { commandFor, FINAL_ANSWER, ROUND_PATTERN, TOOL_MODEL } from './round-text.js';

/**
 * A zero-latency OpenAI-compatible model that drives one approval round trip per user message,
 * run as a child process (`startToolModel`) so its work stays off the measured event loop.
 * Stateless, decided by the last message of the request:
 * - a user message naming `round-<n>` → one `terminal` call running `commandFor(n)` (a command
 *   the approval gate flags: it parks the turn on an approval prompt);
 * - a tool result → the fixed final answer.
 * Answers as SSE chunks when the body asks for `stream: true` (the gateway's runner does).
 */

interface ChatMessage {
  readonly role?: unknown;
  readonly content?: unknown;
}

let calls = 0;

function lastMessage(body: string): ChatMessage | undefined {
  try {
    const parsed = JSON.parse(body) as { messages?: unknown };
    return Array.isArray(parsed.messages) ? (parsed.messages.at(-1) as ChatMessage | undefined) : undefined;
  } catch {
    return undefined;
  }
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '',
      )
      .join(' ');
  }
  return '';
}

function sse(reply: { content: string } | { command: string }): string {
  calls += 1;
  const base = {
    id: `chatcmpl-rt-${calls}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: TOOL_MODEL,
  };
  const chunks: unknown[] = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
  ];
  if ('content' in reply) {
    chunks.push({ ...base, choices: [{ index: 0, delta: { content: reply.content }, finish_reason: null }] });
    chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  } else {
    const call = {
      index: 0,
      id: `call_rt_${calls}`,
      type: 'function',
      function: { name: 'terminal', arguments: JSON.stringify({ command: reply.command }) },
    };
    chunks.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] });
    chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
  }
  chunks.push({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  return `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`;
}

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => {
    body += chunk;
  });
  req.on('end', () => {
    const last = lastMessage(body);
    const round = last?.role === 'user' ? ROUND_PATTERN.exec(contentText(last.content))?.[1] : undefined;
    const text = sse(round === undefined ? { content: FINAL_ANSWER } : { command: commandFor(round) });
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
