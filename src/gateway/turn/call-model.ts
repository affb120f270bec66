import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import { HermesError } from '../../errors/hermes-error.js';
import { abortableSleep } from '../../lib/abortable-sleep.js';
import { backoffDelay } from '../../lib/backoff-delay.js';
import { classifyModelError } from './classify-model-error.js';
import { type ModelReply, type ModelRequest, streamCompletion } from './stream-completion.js';
import type { TurnObserver } from './turn-events.js';

export interface ModelRetryPolicy {
  /** Requests per model call at most (the first one included). */
  readonly attempts: number;
  /** First retry delay, ms; doubles per retry up to `maxDelayMs`. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A server asking to wait longer than this (ms) is not waited for: the call fails at once. */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_MODEL_RETRY: ModelRetryPolicy = {
  attempts: 4,
  baseDelayMs: 1_000,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
};

/** The model could not produce a reply; `message` is fit for the user. */
export class ModelCallError extends HermesError {
  readonly failure: 'model_unreachable' | 'model_error';

  constructor(failure: 'model_unreachable' | 'model_error', message: string, cause: unknown) {
    super('model_failed', message, { cause });
    this.name = 'ModelCallError';
    this.failure = failure;
  }
}

export interface CallModelOptions {
  readonly client: OpenAI;
  readonly request: ModelRequest;
  readonly signal: AbortSignal;
  readonly retry: ModelRetryPolicy;
  readonly onText?: (text: string) => void;
  readonly onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
  readonly observer?: TurnObserver | undefined;
  readonly now?: () => number;
}

/**
 * One model call with bounded retries: 429, 5xx and network failures are retried with
 * exponential backoff (or the server's Retry-After); other refusals fail at once. Aborting the
 * signal stops the request or the wait and rethrows the signal's reason.
 */
export async function callModel(options: CallModelOptions): Promise<ModelReply> {
  const { signal, retry, observer } = options;
  const now = options.now ?? Date.now;
  const model = options.request.model;
  for (let attempt = 1; ; attempt += 1) {
    if (signal.aborted) throw signal.reason;
    const started = now();
    try {
      const reply = await streamCompletion(options.client, options.request, {
        signal,
        newId: () => `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
        ...(options.onText === undefined ? {} : { onText: options.onText }),
      });
      observe(observer, { model, outcome: 'ok', durationMs: now() - started });
      return reply;
    } catch (error) {
      if (signal.aborted) {
        observe(observer, { model, outcome: 'aborted', durationMs: now() - started });
        throw signal.reason;
      }
      const verdict = classifyModelError(error, model);
      const wait = verdict.retryAfterMs ?? backoff(attempt, retry);
      const giveUp =
        !verdict.retryable ||
        attempt >= retry.attempts ||
        (verdict.retryAfterMs ?? 0) > retry.maxRetryAfterMs;
      observe(observer, { model, outcome: giveUp ? 'error' : 'retry', durationMs: now() - started });
      if (giveUp) {
        const message = verdict.retryable
          ? `${verdict.message} I could not get an answer after ${attempt} ${attempt === 1 ? 'try' : 'tries'}; please try again in a few minutes.`
          : verdict.message;
        throw new ModelCallError(verdict.code, message, error);
      }
      options.onRetry?.({ attempt, delayMs: wait, reason: verdict.reason });
      await abortableSleep(wait, signal);
    }
  }
}

function backoff(attempt: number, retry: ModelRetryPolicy): number {
  const base = backoffDelay(attempt, retry.baseDelayMs, retry.maxDelayMs);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

function observe(
  observer: TurnObserver | undefined,
  info: Parameters<NonNullable<TurnObserver['modelCall']>>[0],
) {
  try {
    observer?.modelCall?.(info);
  } catch {
    // Metrics never break a turn.
  }
}
