import type { LarkRoute } from './lark-state.js';

/** A planned failure for the next call(s) of a route. */
export type FakeLarkFailure =
  | {
      /** Answer with this HTTP status and Lark error body. */
      readonly status: number;
      readonly code: number;
      readonly msg: string;
      readonly headers?: Readonly<Record<string, string>>;
      readonly times?: number;
      readonly delayMs?: number;
    }
  | {
      /** Answer with a non-JSON body (a proxy's error page). */
      readonly status: number;
      readonly rawBody: string;
      readonly times?: number;
      readonly delayMs?: number;
    }
  | {
      /**
       * Destroy the socket without answering: `before` handling (nothing happens) or `after` it
       * (the call took effect — e.g. the message is stored — but the client never hears so).
       */
      readonly drop: 'before' | 'after';
      readonly times?: number;
      readonly delayMs?: number;
    }
  | {
      /** Only wait, then answer normally. */
      readonly delayMs: number;
      readonly times?: number;
    };

/**
 * Lark's app rate limit: code 99991400 with the seconds to wait in `x-ogw-ratelimit-reset`. The
 * gateway answers HTTP 429; many APIs document HTTP 400 with the same code (pass `status: 400`).
 */
export const rateLimited = (resetSeconds = 1, times = 1, status: 429 | 400 = 429): FakeLarkFailure => ({
  status,
  code: 99991400,
  msg: 'request trigger frequency limit',
  headers: { 'x-ogw-ratelimit-limit': '50', 'x-ogw-ratelimit-reset': String(resetSeconds) },
  times,
});
/** The per-chat send limit (5 QPS per user or group): HTTP 400, code 230020. */
export const chatRateLimited = (times = 1): FakeLarkFailure => ({
  status: 400,
  code: 230020,
  msg: 'This operation triggers the frequency limit.',
  times,
});
/** An internal error: HTTP 500, code 2200. */
export const internalError = (times = 1): FakeLarkFailure => ({
  status: 500,
  code: 2200,
  msg: 'Internal Error',
  times,
});

export class FailurePlan {
  readonly #planned: { route: LarkRoute; failure: FakeLarkFailure; remaining: number }[] = [];

  add(route: LarkRoute, failure: FakeLarkFailure): void {
    this.#planned.push({ route, failure, remaining: failure.times ?? 1 });
  }

  clear(): void {
    this.#planned.length = 0;
  }

  take(route: LarkRoute): FakeLarkFailure | undefined {
    const index = this.#planned.findIndex((entry) => entry.route === route);
    const entry = this.#planned[index];
    if (entry === undefined) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.#planned.splice(index, 1);
    return entry.failure;
  }
}
