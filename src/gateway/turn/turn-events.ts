import type { TurnOrigin } from './turn-origin.js';
import type { TurnUsage } from './turn-progress.js';

/**
 * What the runner tells the gateway. Every turn ends in exactly one terminal event — `final`,
 * `parked` or `failed` — unless the handler throws (shutdown, lost lock, a broken store), in
 * which case the queue retries it or reports it through its own `onFailed`. `progress` events
 * come before the terminal one and never count as an outcome.
 *
 * Sinks may be async; a terminal sink that throws makes the handler throw, so the queue retries
 * the turn and the runner emits the same outcome again (downstream dedupes by turnId).
 */
export interface TurnEvents {
  progress(event: TurnProgressEvent): void | Promise<void>;
  final(event: TurnFinalEvent): void | Promise<void>;
  parked(event: TurnParkedEvent): void | Promise<void>;
  failed(event: TurnFailedEvent): void | Promise<void>;
}

interface TurnEventBase {
  readonly turnId: string;
  readonly sessionKey: string;
  /**
   * Inbound event ids of the queue turn that emitted it (its items plus messages steered in), so
   * a waiter (an API request, a webhook run) finds the answer to its own message. The runner fills
   * it in; absent means none.
   */
  readonly eventIds?: readonly string[];
}

export type TurnProgress =
  | {
      readonly kind: 'tool_started';
      readonly toolCallId: string;
      readonly tool: string;
      readonly emoji: string;
      /** A short preview of the arguments (the command, the path, the query…); may be empty. */
      readonly preview: string;
    }
  | {
      readonly kind: 'tool_finished';
      readonly toolCallId: string;
      readonly tool: string;
      readonly emoji: string;
      readonly ok: boolean;
      readonly durationMs: number;
    }
  /** A piece of the model's answer as it streams. */
  | { readonly kind: 'text_delta'; readonly text: string }
  /**
   * The model call is being retried; text streamed since the last model call started is void
   * (the retry streams it again).
   */
  | {
      readonly kind: 'model_retry';
      readonly attempt: number;
      readonly delayMs: number;
      readonly reason: string;
    };

export type TurnProgressEvent = TurnEventBase & { readonly origin: TurnOrigin } & TurnProgress;

export interface TurnFinalEvent extends TurnEventBase {
  readonly origin: TurnOrigin;
  readonly text: string;
  /** Tokens of the turn's model calls, summed (absent when the model reported none). */
  readonly usage?: TurnUsage;
}

export interface TurnParkedEvent extends TurnEventBase {
  readonly origin: TurnOrigin;
  /** `approval` (payload: the ApprovalRequest) or `clarify` (payload: { question, choices }). */
  readonly reason: string;
  readonly payload: unknown;
  /** Identifies this park; pass it back to `runner.resume` so a stale answer cannot resume a later park. */
  readonly parkId: string;
  readonly toolCallId: string;
  readonly toolName: string;
}

/**
 * - `invalid_request`: the inbox item or its origin is malformed, or the toolset is unknown.
 * - `no_model`: no model endpoint or model name is configured.
 * - `model_unreachable`: the model server could not be reached (after retries).
 * - `model_error`: the model server refused the request (bad key, unknown model, bad request).
 * - `interrupted`: a newer message or `/stop` ended the turn.
 * - `resume_failed`: the saved state of a parked turn could not be used.
 * - `internal`: the runner ended without an answer (a bug; logged).
 */
export type TurnFailureCode =
  | 'invalid_request'
  | 'no_model'
  | 'model_unreachable'
  | 'model_error'
  | 'interrupted'
  | 'resume_failed'
  | 'internal';

export interface TurnFailedEvent extends TurnEventBase {
  /** Undefined only when the item did not carry a usable origin. */
  readonly origin: TurnOrigin | undefined;
  /**
   * Without a usable origin: the platform token the item named, when it was a valid one, so the
   * failure still reaches the platform's listeners (an API request waiting for its answer).
   */
  readonly platform?: string;
  readonly code: TurnFailureCode;
  /** Plain words for the user; never a stack trace or a secret. */
  readonly message: string;
}

export type TurnOutcomeKind = 'final' | 'parked' | 'failed';

/**
 * Optional metrics hooks (main.ts wires them to prom-client). Called synchronously; a hook that
 * throws is ignored.
 */
export interface TurnObserver {
  /** One per turn that reached an outcome (`thrown`: the handler threw, e.g. at shutdown). */
  turnEnded?(info: {
    readonly outcome: TurnOutcomeKind | 'thrown';
    readonly failureCode?: TurnFailureCode;
    readonly durationMs: number;
  }): void;
  /** One per model request (a retried call reports each attempt). */
  modelCall?(info: {
    readonly model: string;
    readonly outcome: 'ok' | 'retry' | 'error' | 'aborted';
    readonly durationMs: number;
  }): void;
  toolCall?(info: { readonly tool: string; readonly outcome: string; readonly durationMs: number }): void;
}
