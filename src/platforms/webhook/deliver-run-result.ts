import type { Logger } from 'pino';
import { fetch } from 'undici';
import { abortableSleep } from '../../lib/abortable-sleep.js';
import { backoffDelay } from '../../lib/backoff-delay.js';
import type { DeliverToChat } from '../platform.js';
import { capText } from './build-webhook-prompt.js';
import type { WebhookRoute } from './validate-webhook-routes.js';
import type { DeliveryState } from './webhook-runs.js';
import { signingHeaders } from './webhook-signature.js';

export type { DeliverToChat };

export interface RunOutcome {
  readonly status: 'done' | 'failed';
  readonly result?: string;
  readonly error?: string;
}

export interface DeliverRunResultDeps {
  readonly logger: Logger;
  readonly deliverToChat: DeliverToChat | undefined;
  /** Tries of a callback at most. */
  readonly attempts: number;
  /** First retry delay, ms (doubles per retry, capped at a minute). */
  readonly retryMs: number;
  /** Aborted at shutdown: pending retries stop. */
  readonly signal: AbortSignal;
  readonly now: () => number;
}

const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_RETRY_MS = 60_000;
const USER_AGENT = 'hermes-gateway/0.1 (webhook result)';

/** An answer that means "nothing to say" is not delivered. */
export function isSilent(text: string): boolean {
  const trimmed = text.trim();
  return trimmed === '' || trimmed === '[SILENT]';
}

type AttemptResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly retry: boolean; readonly error: string; readonly waitMs?: number };

async function postOnce(
  url: string,
  route: WebhookRoute,
  body: Buffer,
  runId: string,
  deps: DeliverRunResultDeps,
): Promise<AttemptResult> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-hermes-run-id': runId,
    ...(route.secret === undefined
      ? {}
      : signingHeaders({
          scheme: route.scheme,
          secret: route.secret,
          body,
          messageId: runId,
          nowMs: deps.now(),
        })),
  };
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.any([deps.signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
    });
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { ok: true };
    const retry = response.status >= 500 || response.status === 408 || response.status === 429;
    const after = Number(response.headers.get('retry-after'));
    return {
      ok: false,
      retry,
      error: `the receiver answered HTTP ${response.status}`,
      ...(Number.isFinite(after) && after > 0 ? { waitMs: Math.min(after * 1000, MAX_RETRY_MS) } : {}),
    };
  } catch (error) {
    // Never the error text: it may carry the URL (and a token in its query).
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    const what = typeof code === 'string' ? code : (error as Error).name;
    return { ok: false, retry: true, error: `the receiver could not be reached (${what})` };
  }
}

async function deliverToUrl(
  url: string,
  route: WebhookRoute,
  body: Buffer,
  runId: string,
  deps: DeliverRunResultDeps,
): Promise<DeliveryState> {
  let last = '';
  for (let attempt = 1; attempt <= deps.attempts; attempt += 1) {
    const result = await postOnce(url, route, body, runId, deps);
    if (result.ok) return { status: 'delivered', attempts: attempt };
    last = result.error;
    deps.logger.warn({ route: route.name, runId, attempt, err: last }, 'webhook result callback failed');
    if (!result.retry || attempt === deps.attempts || deps.signal.aborted) {
      return { status: 'failed', attempts: attempt, error: last };
    }
    const wait = Math.max(result.waitMs ?? 0, backoffDelay(attempt, deps.retryMs, MAX_RETRY_MS));
    try {
      await abortableSleep(wait, deps.signal);
    } catch {
      return { status: 'failed', attempts: attempt, error: `${last}; retries stopped at shutdown` };
    }
  }
  return { status: 'failed', attempts: deps.attempts, error: last };
}

/**
 * Delivers a finished run the way its route says: a signed JSON POST to a URL (retried with
 * backoff, then recorded as failed), a chat message through `deliverToChat`, or a log line.
 * Never throws; the returned state goes into the run record.
 */
export async function deliverRunResult(
  route: WebhookRoute,
  run: { readonly runId: string; readonly deliveryId: string },
  outcome: RunOutcome,
  deps: DeliverRunResultDeps,
): Promise<DeliveryState> {
  if (outcome.status === 'done' && isSilent(outcome.result ?? '')) return { status: 'skipped' };
  const target = route.deliver;
  switch (target.kind) {
    case 'log':
      deps.logger.info(
        {
          route: route.name,
          runId: run.runId,
          deliveryId: run.deliveryId,
          status: outcome.status,
          result: capText(outcome.result ?? outcome.error ?? '', 4_000),
        },
        'webhook run finished',
      );
      return { status: 'logged' };
    case 'url': {
      const body = Buffer.from(
        JSON.stringify({
          route: route.name,
          run_id: run.runId,
          delivery_id: run.deliveryId,
          status: outcome.status,
          ...(outcome.result !== undefined ? { result: outcome.result } : {}),
          ...(outcome.error !== undefined ? { error: outcome.error } : {}),
        }),
      );
      return await deliverToUrl(target.url, route, body, run.runId, deps);
    }
    case 'chat': {
      const text =
        outcome.status === 'done'
          ? (outcome.result ?? '')
          : `Webhook route "${route.name}" (delivery ${run.deliveryId}) failed: ${outcome.error ?? 'unknown error'}`;
      if (deps.deliverToChat === undefined) {
        return { status: 'failed', attempts: 0, error: 'no chat delivery is available in this process' };
      }
      try {
        await deps.deliverToChat(target.platform, target.chatId, text);
        return { status: 'delivered', attempts: 1 };
      } catch (error) {
        const message = capText((error as Error).message ?? String(error), 300);
        deps.logger.warn(
          { route: route.name, runId: run.runId, err: message },
          'webhook chat delivery failed',
        );
        return { status: 'failed', attempts: 1, error: `the chat message could not be sent: ${message}` };
      }
    }
  }
}
