import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FAKE_ANSWER, FAKE_MODEL } from './fake-model-answer.js';

/**
 * A zero-latency OpenAI-compatible model, run as a child process (`startFakeModel`): every
 * POST gets the same fixed answer at once — SSE `chat.completion.chunk`s when the body asks for
 * `stream: true` (what the gateway's runner sends), one `chat.completion` otherwise. The body is
 * read to the end (keep-alive) but not parsed. Exits when its parent goes away.
 * `BENCH_FAKE_CHUNKS` (default 1): the answer streams as that many text deltas (the fixed
 * answer, then ' more' per extra delta), to mimic a model that streams token by token.
 * `BENCH_FAKE_LATENCY_MS` (default 0): each answer is held back that long (a remote model's time
 * to answer, spent waiting, not computing), so a bench can show what more worker slots buy.
 */
const chunks = Math.max(1, Number.parseInt(process.env['BENCH_FAKE_CHUNKS'] ?? '1', 10) || 1);
const latencyMs = Math.max(0, Number.parseInt(process.env['BENCH_FAKE_LATENCY_MS'] ?? '0', 10) || 0);
const pieces = [FAKE_ANSWER, ...Array.from({ length: chunks - 1 }, () => ' more')];
const created = Math.floor(Date.now() / 1000);
const base = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created, model: FAKE_MODEL };
const sse = [
  { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
  ...pieces.map((content) => ({
    ...base,
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  })),
  { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
  { ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
]
  .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
  .concat('data: [DONE]\n\n')
  .join('');
const json = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created,
  model: FAKE_MODEL,
  choices: [{ index: 0, message: { role: 'assistant', content: pieces.join('') }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});
const sseHeaders = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'content-length': Buffer.byteLength(sse),
};
const jsonHeaders = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) };

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => {
    body += chunk;
  });
  req.on('end', () => {
    const answer = () => {
      if (body.includes('"stream":true')) {
        res.writeHead(200, sseHeaders);
        res.end(sse);
      } else {
        res.writeHead(200, jsonHeaders);
        res.end(json);
      }
    };
    if (latencyMs === 0) answer();
    else setTimeout(answer, latencyMs);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
