import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A protocol-level fake for the search providers' HTTP APIs (Brave, Tavily, SearXNG): it records
 * every request and answers with the next scripted reply, or with `respond` when the script is
 * empty. The `*Body` helpers build each provider's response shape.
 */
export interface FakeSearchReply {
  readonly status?: number;
  readonly json?: unknown;
  /** Sent as-is instead of `json`. */
  readonly raw?: string;
  readonly headers?: Record<string, string>;
  /** Never answer (for timeouts). */
  readonly hang?: boolean;
}

export interface RecordedSearchRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
}

export interface FakeSearchServer {
  readonly url: string;
  readonly requests: RecordedSearchRequest[];
  script(...replies: FakeSearchReply[]): void;
  respond: (request: RecordedSearchRequest) => FakeSearchReply;
  close(): Promise<void>;
}

export interface FakeHit {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
}

export const braveBody = (hits: readonly FakeHit[]) => ({
  type: 'search',
  query: { original: 'q' },
  web: {
    type: 'search',
    results: hits.map((hit) => ({ title: hit.title, url: hit.url, description: hit.snippet })),
  },
});

export const tavilyBody = (hits: readonly FakeHit[]) => ({
  query: 'q',
  response_time: 0.5,
  results: hits.map((hit, index) => ({
    title: hit.title,
    url: hit.url,
    content: hit.snippet,
    score: 1 - index / 10,
  })),
});

export const searxngBody = (hits: readonly FakeHit[]) => ({
  query: 'q',
  number_of_results: hits.length,
  results: hits.map((hit) => ({ title: hit.title, url: hit.url, content: hit.snippet, engine: 'fake' })),
});

export async function startFakeSearchServer(): Promise<FakeSearchServer> {
  const queue: FakeSearchReply[] = [];
  const requests: RecordedSearchRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text ? (JSON.parse(text) as unknown) : undefined;
      } catch {
        // keep the raw text
      }
      const parsed = new URL(req.url ?? '/', 'http://fake');
      const recorded: RecordedSearchRequest = {
        method: req.method ?? 'GET',
        path: parsed.pathname,
        query: parsed.searchParams,
        headers: req.headers,
        body,
      };
      requests.push(recorded);
      const reply = queue.shift() ?? fake.respond(recorded);
      if (reply.hang === true) return;
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
      res.end(reply.raw ?? JSON.stringify(reply.json ?? {}));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const fake: FakeSearchServer = {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...replies) => {
      queue.push(...replies);
    },
    respond: () => ({ json: {} }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
