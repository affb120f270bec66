import { Pool } from 'undici';

export interface HttpPoster {
  /** POSTs a JSON body; resolves to the response text, rejects unless the status is 200. */
  post(path: string, body: string, headers?: Record<string, string>): Promise<string>;
  close(): Promise<void>;
}

/** A keep-alive undici pool to one origin with `connections` sockets (one request per socket). */
export function createHttpPoster(origin: string, connections: number): HttpPoster {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  return {
    async post(path, body, headers = {}) {
      const response = await pool.request({
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      const text = await response.body.text();
      if (response.statusCode !== 200) {
        throw new Error(`HTTP ${response.statusCode} from ${path}: ${text.slice(0, 200)}`);
      }
      return text;
    },
    close: () => pool.close(),
  };
}
