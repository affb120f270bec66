import { Readable } from 'node:stream';
import { inspect } from 'node:util';
import * as lark from '@larksuiteoapi/node-sdk';

/** Test helpers around the real SDK: a quiet logger that keeps lines, and a client on the fake. */

export interface KeptLogger {
  readonly logger: {
    error: (...msg: unknown[]) => void;
    warn: (...msg: unknown[]) => void;
    info: (...msg: unknown[]) => void;
    debug: (...msg: unknown[]) => void;
    trace: (...msg: unknown[]) => void;
  };
  readonly lines: string[];
}

export function keptLogger(): KeptLogger {
  const lines: string[] = [];
  const keep =
    (level: string) =>
    (...msg: unknown[]) => {
      lines.push(
        `${level} ${msg.map((m) => (typeof m === 'string' ? m : inspect(m, { depth: 3 }))).join(' ')}`,
      );
    };
  return {
    lines,
    logger: {
      error: keep('error'),
      warn: keep('warn'),
      info: keep('info'),
      debug: keep('debug'),
      trace: keep('trace'),
    },
  };
}

/** A token cache the test can empty (the SDK's default cache is one per process, keyed by app id). */
export class ClearableCache {
  readonly #entries = new Map<string, { value: unknown; expiresAt: number | undefined }>();

  async set(key: unknown, value: unknown, expire?: number, options?: { namespace?: string }) {
    this.#entries.set(`${options?.namespace ?? ''}:${String(key)}`, { value, expiresAt: expire });
    return true;
  }

  async get(key: unknown, options?: { namespace?: string }) {
    const entry = this.#entries.get(`${options?.namespace ?? ''}:${String(key)}`);
    if (entry === undefined || (entry.expiresAt !== undefined && entry.expiresAt < Date.now()))
      return undefined;
    return entry.value;
  }

  clear(): void {
    this.#entries.clear();
  }
}

export function sdkClient(
  fake: { appId: string; appSecret: string; domain: string },
  options: { cache?: ClearableCache; logger?: KeptLogger } = {},
): lark.Client {
  return new lark.Client({
    appId: fake.appId,
    appSecret: fake.appSecret,
    domain: fake.domain,
    logger: (options.logger ?? keptLogger()).logger,
    loggerLevel: lark.LoggerLevel.debug,
    ...(options.cache !== undefined ? { cache: options.cache } : {}),
  });
}

interface ErrorResponse {
  readonly status?: number;
  readonly data?: unknown;
  readonly headers?: unknown;
}

const responseOf = (error: unknown): ErrorResponse | undefined =>
  typeof error === 'object' && error !== null && 'response' in error
    ? (error as { response?: ErrorResponse }).response
    : undefined;

/** The Lark error an SDK call rejected with (axios keeps the status and body). */
export function larkFailure(error: unknown): { status: number | undefined; code: unknown; headers: unknown } {
  const response = responseOf(error);
  const data = response?.data;
  const code = typeof data === 'object' && data !== null && 'code' in data ? data.code : undefined;
  return { status: response?.status, code, headers: response?.headers };
}

/**
 * The same for a streamed download (messageResource.get): the error body is an unread stream,
 * so the Lark code has to be read from it.
 */
export async function streamedLarkFailure(
  error: unknown,
): Promise<{ status: number | undefined; code: unknown }> {
  const response = responseOf(error);
  const data = response?.data;
  if (!(data instanceof Readable)) return { status: response?.status, code: undefined };
  const chunks: Buffer[] = [];
  for await (const chunk of data) chunks.push(Buffer.from(chunk));
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const code = typeof parsed === 'object' && parsed !== null && 'code' in parsed ? parsed.code : undefined;
  return { status: response?.status, code };
}
