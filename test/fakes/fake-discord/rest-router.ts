/**
 * The REST side's plumbing: `/api/v10/...` route matching, `Authorization: Bot <token>`, JSON and
 * multipart bodies, the record of every call, and planned faults (429 with Discord's rate-limit
 * headers, 5xx, a delayed answer) for the next N calls of a route.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import type { EventClock, Stamp } from './event-clock.js';
import { apiErrors, DiscordApiError, fromZod } from './rest-errors.js';

export interface UploadedFile {
  /** Form field name (`files[0]` …). */
  readonly field: string;
  readonly filename: string;
  readonly contentType: string | undefined;
  readonly bytes: Buffer;
}

export interface RecordedCall extends Stamp {
  readonly method: string;
  /** The route template, e.g. `POST /channels/:channel_id/messages`; `?` when nothing matched. */
  readonly route: string;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  /** Parsed JSON (or a multipart request's `payload_json`); undefined without a body. */
  readonly body: unknown;
  readonly files: readonly UploadedFile[];
  /** `X-Audit-Log-Reason`, decoded. */
  readonly reason: string | undefined;
  readonly authorized: boolean;
  /** Filled in when answered. */
  status: number | undefined;
  response: unknown;
  answeredAt: number | undefined;
}

export interface RouteContext {
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly body: unknown;
  readonly files: readonly UploadedFile[];
  readonly call: RecordedCall;
}

export interface RouteResult {
  readonly status: number;
  readonly body?: unknown;
}

export interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** `/channels/:channel_id/messages` (literal segments win over parameters: list them first). */
  readonly path: string;
  /** Needs `Authorization: Bot <token>` (interaction callbacks and webhooks do not). */
  readonly auth: boolean;
  readonly handle: (context: RouteContext) => RouteResult | Promise<RouteResult>;
}

export interface RestFailure {
  /** 429, 500, 502, 503 … */
  readonly status: number;
  /** 429: seconds to wait (body `retry_after`, `Retry-After`, `X-RateLimit-Reset-After`); default 0.1. */
  readonly retryAfter?: number;
  /** 429: a global limit (`X-RateLimit-Global: true`, scope `global`). */
  readonly global?: boolean;
  /** 429: `X-RateLimit-Scope` for a route limit; default `user`. */
  readonly scope?: 'user' | 'shared';
  /** Calls in a row that fail; default 1. */
  readonly times?: number;
  /** Only calls this matches count. */
  readonly when?: (call: RecordedCall) => boolean;
}

interface Planned {
  readonly route: string;
  readonly failure?: RestFailure;
  readonly delayMs?: number;
  readonly when: ((call: RecordedCall) => boolean) | undefined;
  remaining: number;
}

export const ok = (body?: unknown): RouteResult =>
  body === undefined ? { status: 204 } : { status: 200, body };

/** Parses a request body with a zod schema; failures become Discord's `Invalid Form Body`. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = schema.safeParse(body ?? {}, { reportInput: true });
  if (!parsed.success) throw fromZod(parsed.error);
  return parsed.data;
}

export class RestRouter {
  readonly calls: RecordedCall[] = [];
  /** Exceptions the fake itself threw while answering (a bug in the fake, not in the client). */
  readonly internalErrors: unknown[] = [];
  readonly #plan: Planned[] = [];
  readonly #compiled: { route: Route; pattern: RegExp; names: string[] }[];
  readonly #closing = new AbortController();

  constructor(
    routes: readonly Route[],
    private readonly token: () => string,
    private readonly clock: EventClock,
  ) {
    this.#compiled = routes.map((route) => {
      const names: string[] = [];
      const source = route.path.replace(/[.@]/g, '\\$&').replace(/:([a-z_]+)/g, (_, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
      return { route, pattern: new RegExp(`^${source}$`), names };
    });
  }

  failNext(route: string, failure: RestFailure): void {
    this.#plan.push({ route, failure, when: failure.when, remaining: failure.times ?? 1 });
  }

  delayNext(route: string, delayMs: number, times = 1): void {
    this.#plan.push({ route, delayMs, when: undefined, remaining: times });
  }

  clearFaults(): void {
    this.#plan.length = 0;
  }

  close(): void {
    this.#closing.abort();
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = (req.method ?? 'GET').toUpperCase();
    const path = url.pathname.startsWith('/api/v10/') ? url.pathname.slice('/api/v10'.length) : undefined;
    const matches =
      path === undefined
        ? []
        : this.#compiled.map((c) => ({ c, m: c.pattern.exec(path) })).filter((x) => x.m !== null);
    const hit = matches.find((x) => x.c.route.method === method);
    const params: Record<string, string> = {};
    for (const [i, name] of (hit?.c.names ?? []).entries()) params[name] = safeDecode(hit?.m?.[i + 1] ?? '');
    let body: unknown;
    let files: UploadedFile[] = [];
    let bodyError: DiscordApiError | undefined;
    try {
      ({ body, files } = await parseRequestBody(raw, req.headers['content-type']));
    } catch {
      bodyError = apiErrors.invalidJson();
    }
    const reasonHeader = req.headers['x-audit-log-reason'];
    const call: RecordedCall = {
      ...this.clock.stamp(),
      method,
      route: hit === undefined ? '?' : `${method} ${hit.c.route.path}`,
      path: url.pathname,
      params,
      query: Object.fromEntries(url.searchParams),
      body,
      files,
      reason: typeof reasonHeader === 'string' ? decodeURIComponent(reasonHeader) : undefined,
      authorized: req.headers.authorization === `Bot ${this.token()}`,
      status: undefined,
      response: undefined,
      answeredAt: undefined,
    };
    this.calls.push(call);
    this.clock.changed();
    let headers: Record<string, string> = {};
    let result: RouteResult;
    try {
      if (hit === undefined) throw matches.length > 0 ? apiErrors.methodNotAllowed() : apiErrors.notFound();
      if (hit.c.route.auth && !call.authorized) throw apiErrors.unauthorized();
      if (bodyError !== undefined) throw bodyError;
      const planned = this.#take(call);
      if (planned.delayMs > 0) await sleep(planned.delayMs, undefined, { signal: this.#closing.signal });
      if (planned.failure !== undefined) {
        ({ result, headers } = failureAnswer(planned.failure, call.route));
      } else {
        result = await hit.c.route.handle({ params, query: url.searchParams, body, files, call });
      }
    } catch (error) {
      if (this.#closing.signal.aborted) return;
      if (error instanceof DiscordApiError) result = { status: error.status, body: error.body() };
      else {
        this.internalErrors.push(error);
        result = { status: 500, body: { message: '500: Internal Server Error', code: 0 } };
      }
    }
    call.status = result.status;
    call.response = result.body;
    call.answeredAt = Date.now();
    this.clock.changed();
    if (res.destroyed) return;
    if (result.status === 204 || result.body === undefined) {
      // No content-type on an empty answer: @discordjs/rest would JSON.parse('') and crash.
      res.writeHead(result.status, headers).end();
      return;
    }
    res
      .writeHead(result.status, { ...headers, 'content-type': 'application/json' })
      .end(JSON.stringify(result.body));
  }

  #take(call: RecordedCall): { delayMs: number; failure: RestFailure | undefined } {
    let delayMs = 0;
    let failure: RestFailure | undefined;
    for (const entry of [...this.#plan]) {
      if (entry.route !== call.route || (entry.when !== undefined && !entry.when(call))) continue;
      if (entry.failure !== undefined && failure !== undefined) continue;
      if (entry.delayMs !== undefined && delayMs > 0) continue;
      if (entry.failure !== undefined) failure = entry.failure;
      if (entry.delayMs !== undefined) delayMs = entry.delayMs;
      entry.remaining -= 1;
      if (entry.remaining <= 0) this.#plan.splice(this.#plan.indexOf(entry), 1);
    }
    return { delayMs, failure };
  }
}

function failureAnswer(
  failure: RestFailure,
  route: string,
): { result: RouteResult; headers: Record<string, string> } {
  if (failure.status !== 429) {
    return {
      result: { status: failure.status, body: { message: `${failure.status}: Server Error`, code: 0 } },
      headers: {},
    };
  }
  const retryAfter = failure.retryAfter ?? 0.1;
  const global = failure.global === true;
  const headers: Record<string, string> = {
    'retry-after': String(retryAfter),
    'x-ratelimit-scope': global ? 'global' : (failure.scope ?? 'user'),
  };
  if (global) headers['x-ratelimit-global'] = 'true';
  else {
    Object.assign(headers, {
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': (Date.now() / 1000 + retryAfter).toFixed(3),
      'x-ratelimit-reset-after': retryAfter.toFixed(3),
      'x-ratelimit-bucket': Buffer.from(route).toString('hex').slice(0, 32),
    });
  }
  return {
    result: {
      status: 429,
      body: { message: 'You are being rate limited.', retry_after: retryAfter, global, code: 0 },
    },
    headers,
  };
}

async function parseRequestBody(
  raw: Buffer,
  contentType: string | undefined,
): Promise<{ body: unknown; files: UploadedFile[] }> {
  if (raw.length === 0) return { body: undefined, files: [] };
  if (contentType?.startsWith('multipart/form-data')) {
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
    const files: UploadedFile[] = [];
    let body: unknown;
    for (const [field, value] of form.entries()) {
      if (typeof value === 'string') {
        if (field === 'payload_json') body = JSON.parse(value);
      } else {
        files.push({
          field,
          filename: value.name,
          contentType: value.type === '' ? undefined : value.type,
          bytes: Buffer.from(await value.arrayBuffer()),
        });
      }
    }
    return { body, files };
  }
  return { body: JSON.parse(raw.toString('utf8')), files: [] };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
