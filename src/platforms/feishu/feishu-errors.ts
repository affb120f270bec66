import { PlatformError } from '../adapter.js';

/**
 * Lark errors as `PlatformError`s. The SDK rejects with axios errors for HTTP failures (status,
 * body `{code, msg}` and headers kept on `response`) and resolves `{code, msg}` for some refusals
 * answered with HTTP 200; both end here. Messages carry the route's name, status and Lark's code,
 * never a token or request body.
 */

export const LARK_CODES = {
  rateLimited: 99991400,
  chatRateLimited: 230020,
  invalidParameter: 230001,
  notInChat: 230002,
  recalled: 230011,
  notSender: 230012,
  userUnavailable: 230013,
  tooLong: 230025,
  noPermission: 230027,
  cardFailed: 230099,
} as const;

/** Network failures where the request surely never left this machine. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

interface Failure {
  readonly status: number | undefined;
  readonly code: number | undefined;
  readonly msg: string;
  readonly resetSeconds: number | undefined;
  readonly network: string | undefined;
}

function failureOf(error: unknown): Failure {
  const response = isRecord(error) && isRecord(error['response']) ? error['response'] : undefined;
  const data = response !== undefined && isRecord(response['data']) ? response['data'] : undefined;
  const headers = response !== undefined && isRecord(response['headers']) ? response['headers'] : {};
  const reset = Number(headers['x-ogw-ratelimit-reset']);
  const network = isRecord(error) && typeof error['code'] === 'string' ? error['code'] : undefined;
  return {
    status: typeof response?.['status'] === 'number' ? response['status'] : undefined,
    code: typeof data?.['code'] === 'number' ? data['code'] : undefined,
    msg: typeof data?.['msg'] === 'string' ? data['msg'] : error instanceof Error ? error.message : '',
    resetSeconds: Number.isFinite(reset) && reset >= 0 ? reset : undefined,
    network: response === undefined ? network : undefined,
  };
}

function classify(what: string, failure: Failure, cause: unknown): PlatformError {
  const { status, code } = failure;
  const text =
    `feishu ${what}: ${status !== undefined ? `HTTP ${status} ` : ''}${code !== undefined ? `code ${code} ` : ''}${failure.msg}`
      .trim()
      .slice(0, 300);
  if (code === LARK_CODES.rateLimited || status === 429) {
    return new PlatformError('rate_limited', text, {
      retryAfterMs: Math.max(1, failure.resetSeconds ?? 1) * 1000,
      cause,
    });
  }
  if (code === LARK_CODES.chatRateLimited) {
    return new PlatformError('rate_limited', text, { retryAfterMs: 1000, cause });
  }
  if (code === LARK_CODES.tooLong) return new PlatformError('too_long', text, { cause });
  if (code === LARK_CODES.recalled) return new PlatformError('not_found', text, { cause });
  if (
    code === LARK_CODES.notInChat ||
    code === LARK_CODES.userUnavailable ||
    code === LARK_CODES.noPermission ||
    code === LARK_CODES.notSender ||
    status === 403
  ) {
    return new PlatformError('forbidden', text, { cause });
  }
  if (status === 404) return new PlatformError('not_found', text, { cause });
  if (status !== undefined && status >= 500) {
    return new PlatformError('unavailable', text, { maybeDelivered: true, cause });
  }
  if (status === undefined && code === undefined) {
    const sent = failure.network === undefined || !NOT_SENT.has(failure.network);
    return new PlatformError('unavailable', text, { maybeDelivered: sent, cause });
  }
  return new PlatformError('bad_request', text, { cause });
}

/** A rejected SDK call as a PlatformError (an existing one passes through). */
export function larkError(what: string, error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  return classify(what, failureOf(error), error);
}

/** An SDK answer `{code, msg}` with a non-zero code, as a PlatformError; undefined when it succeeded. */
export function larkRefusal(what: string, answer: unknown): PlatformError | undefined {
  if (!isRecord(answer)) return new PlatformError('bad_request', `feishu ${what}: no answer`);
  const code = answer['code'];
  if (code === 0 || code === undefined) return undefined;
  return classify(
    what,
    {
      status: undefined,
      code: typeof code === 'number' ? code : -1,
      msg: typeof answer['msg'] === 'string' ? answer['msg'] : '',
      resetSeconds: undefined,
      network: undefined,
    },
    undefined,
  );
}

/** An error as a log line, without secrets. */
export function describeLarkError(error: unknown): string {
  return larkError('call', error).message;
}
