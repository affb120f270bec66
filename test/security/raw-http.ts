import { connect } from 'node:net';

export interface RawResponse {
  readonly status: number;
  readonly head: string;
  readonly body: string;
}

/**
 * One HTTP/1.1 request written byte for byte on a fresh connection: the request target goes
 * out exactly as given (fetch and the http module would normalise `..`, `//` or `%2e`). An
 * absolute-form target (`http://host/path`) is sent as is too.
 */
export async function rawRequest(
  base: string,
  input: {
    readonly method: string;
    readonly target: string;
    readonly headers?: Readonly<Record<string, string>>;
    readonly body?: string;
  },
): Promise<RawResponse> {
  const url = new URL(base);
  const body = input.body === undefined ? undefined : Buffer.from(input.body, 'utf8');
  const headers: Record<string, string> = {
    host: url.host,
    connection: 'close',
    ...(body === undefined ? {} : { 'content-length': String(body.length) }),
    ...input.headers,
  };
  const head = `${input.method} ${input.target} HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  return await new Promise<RawResponse>((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    const chunks: Buffer[] = [];
    socket.setTimeout(15_000, () =>
      socket.destroy(new Error(`no answer to ${input.method} ${input.target}`)),
    );
    socket.on('connect', () => {
      socket.write(head);
      if (body !== undefined) socket.write(body);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A server that answers before reading the whole request (a 401 to a POST) may reset the
    // connection while the body is still being written: the answer received still counts.
    let socketError: Error | undefined;
    socket.on('error', (error: Error) => {
      socketError = error;
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      if (status === null) {
        reject(
          socketError ??
            new Error(
              `no HTTP status for ${input.method} ${input.target}: ${JSON.stringify(text.slice(0, 200))}`,
            ),
        );
        return;
      }
      const split = text.indexOf('\r\n\r\n');
      resolve({
        status: Number(status[1]),
        head: split < 0 ? text : text.slice(0, split),
        body: split < 0 ? '' : text.slice(split + 4),
      });
    });
  });
}
