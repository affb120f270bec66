import type { IncomingHttpHeaders } from 'node:http';
import { larkIds } from './lark-ids.js';
import type { FakeResource } from './lark-state.js';

/** One Open API request, as the routes see it. */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  /** The parsed JSON body; undefined when empty or not JSON. */
  readonly body: unknown;
}

/** What the server writes back. */
export type ApiAnswer =
  | {
      readonly kind: 'json';
      readonly status: number;
      readonly body: Record<string, unknown>;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'binary'; readonly resource: FakeResource }
  | { readonly kind: 'raw'; readonly status: number; readonly body: string };

export const ok = (data: unknown, msg = 'success'): ApiAnswer => ({
  kind: 'json',
  status: 200,
  body: { code: 0, msg, data },
});

/** Lark's error envelope: `{code, msg, error: {log_id}}` with the HTTP status Lark uses. */
export const larkError = (
  status: number,
  code: number,
  msg: string,
  headers?: Readonly<Record<string, string>>,
): ApiAnswer => ({
  kind: 'json',
  status,
  body: { code, msg, error: { log_id: larkIds.logId() } },
  ...(headers !== undefined ? { headers } : {}),
});

/** Lark's generic request validation failure (missing or malformed field). */
export const fieldInvalid = (detail: string): ApiAnswer =>
  larkError(400, 99992402, `field validation failed: ${detail}`);

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const stringField = (body: unknown, key: string): string | undefined => {
  if (!isRecord(body)) return undefined;
  const value = body[key];
  return typeof value === 'string' ? value : undefined;
};
