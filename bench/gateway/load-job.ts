import type { LoadResult } from '../lib/closed-loop.js';

/** What the load client calls: a JSON POST to the system under test, or the fake model directly. */
export type LoadTarget =
  | {
      readonly kind: 'http';
      /** `http://127.0.0.1:<port>` */
      readonly origin: string;
      readonly path: string;
      readonly body: string;
      /** Spreads the calls over conversations with `X-Hermes-Session-Id: bench-conversation-<(offset + i) % count>`. */
      readonly conversations?: { readonly offset: number; readonly count: number };
    }
  | { readonly kind: 'model'; readonly baseURL: string };

/** One closed-loop run. */
export interface LoadJob {
  readonly target: LoadTarget;
  readonly total: number;
  readonly concurrency: number;
}

export interface LoadRequest {
  readonly id: number;
  readonly job: LoadJob;
}

export type LoadReply =
  | { readonly id: number; readonly result: LoadResult }
  | { readonly id: number; readonly error: string };
