import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A protocol-level fake of the OpenAI chat-completions API, for the `openai` SDK through `baseURL`.
 * Each request is answered by the next scripted reply (or by `respond` when the script is empty);
 * every request body is recorded for assertions.
 */
export interface FakeToolCall {
  readonly id?: string;
  readonly name: string;
  readonly arguments: string;
}

export type FakeReply =
  | {
      readonly content: string;
      readonly toolCalls?: readonly FakeToolCall[];
      /** Streaming only: send tool-call arguments in pieces of this many characters (default: one piece). */
      readonly argumentChunkSize?: number;
      /** Wait this long before answering (a model that takes its time). */
      readonly delayMs?: number;
      /** Streaming only: after this many characters of content, send nothing more and keep the connection open. */
      readonly stallAfterChars?: number;
      /** Streaming only: after the first (role) chunk, wait this long before the content (a model thinking). */
      readonly thinkMs?: number;
      /** Streaming only: drop the connection right after the first piece of the first tool call's arguments. */
      readonly cutMidToolCall?: boolean;
    }
  | { readonly status: number; readonly error: string; readonly headers?: Record<string, string> }
  | { readonly hang: true }
  /** Drops the connection without an answer (a network failure for the client). */
  | { readonly destroy: true };

export interface RecordedRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}

export interface FakeOpenAi {
  readonly baseURL: string;
  readonly requests: RecordedRequest[];
  /** Queue replies answered in order. */
  script(...replies: FakeReply[]): void;
  /** Fallback when the script is empty. */
  respond: (request: RecordedRequest) => FakeReply;
  /**
   * Forgets recorded requests and replies still scripted, between tests: replies a failed test
   * left unused would otherwise answer the next test's requests and fail it too.
   */
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const queue: FakeReply[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let counter = 0;
  const fake: FakeOpenAi = {
    baseURL: '',
    requests,
    script: (...replies) => {
      queue.push(...replies);
    },
    respond: () => ({ content: 'ok' }),
    reset: () => {
      queue.length = 0;
      requests.length = 0;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'bad json' } }));
      return;
    }
    const path = req.url ?? '/';
    if (req.method === 'GET' && path.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'fake' }] }),
      );
      return;
    }
    const recorded: RecordedRequest = { path, headers: req.headers, body };
    requests.push(recorded);
    const reply = queue.shift() ?? fake.respond(recorded);
    if ('hang' in reply) return;
    if ('destroy' in reply) {
      req.socket.destroy();
      return;
    }
    if ('status' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
      res.end(JSON.stringify({ error: { message: reply.error, type: 'fake_error' } }));
      return;
    }
    if (reply.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    counter += 1;
    const id = `chatcmpl-fake-${counter}`;
    const model = typeof body['model'] === 'string' ? body['model'] : 'fake-model';
    const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
      id: call.id ?? `call_${counter}_${index}`,
      type: 'function' as const,
      function: { name: call.name, arguments: call.arguments },
    }));
    const finish = toolCalls.length > 0 ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    if (body['stream'] === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (chunk: unknown) => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
      send({
        ...base,
        choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
      });
      if (reply.thinkMs !== undefined) {
        res.write(': thinking\n\n'); // an SSE comment, as servers send to keep the stream alive
        await new Promise((resolve) => setTimeout(resolve, reply.thinkMs));
      }
      if (reply.content) {
        let sent = 0;
        for (const piece of reply.content.match(/.{1,16}/gs) ?? []) {
          if (reply.stallAfterChars !== undefined && sent >= reply.stallAfterChars) return;
          send({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
          sent += piece.length;
        }
        if (reply.stallAfterChars !== undefined) return;
      }
      let cut = false;
      toolCalls.forEach((call, index) => {
        if (cut) return;
        send({
          ...base,
          choices: [
            {
              index: 0,
              delta: {
                tool_calls: [
                  {
                    index,
                    id: call.id,
                    type: 'function',
                    function: { name: call.function.name, arguments: '' },
                  },
                ],
              },
              finish_reason: null,
            },
          ],
        });
        const size = reply.argumentChunkSize ?? Math.max(1, call.function.arguments.length);
        const pieces = call.function.arguments.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [''];
        for (const piece of pieces) {
          if (reply.cutMidToolCall === true && index === 0 && piece !== pieces[0]) {
            cut = true;
            res.socket?.destroy();
            return;
          }
          send({
            ...base,
            choices: [
              {
                index: 0,
                delta: { tool_calls: [{ index, function: { arguments: piece } }] },
                finish_reason: null,
              },
            ],
          });
        }
      });
      if (cut) return;
      send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] });
      send({ ...base, choices: [], usage });
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: reply.content || null,
              ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: finish,
          },
        ],
        usage,
      }),
    );
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, { baseURL: `http://127.0.0.1:${port}/v1` });
}
