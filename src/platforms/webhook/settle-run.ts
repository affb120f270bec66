import type { Logger } from 'pino';
import type { TurnEnd } from '../ingress.js';
import type { WebhookRunRecords } from '../webhook-run-records.js';
import { type DeliverToChat, deliverRunResult, type RunOutcome } from './deliver-run-result.js';
import type { WebhookRoute } from './validate-webhook-routes.js';

/** How long one process may hold the right to deliver a run's result before another takes over, ms. */
export const DELIVERY_LEASE_MS = 10 * 60_000;

export function outcomeOf(end: TurnEnd, timeoutMs: number): RunOutcome {
  switch (end.type) {
    case 'final':
      return { status: 'done', result: end.text };
    case 'failed':
      return { status: 'failed', error: `${end.message} (${end.code})` };
    case 'parked':
      return {
        status: 'failed',
        error: 'the run stopped to wait for a human decision, which a webhook cannot give',
      };
    case 'timeout':
      return {
        status: 'failed',
        error: `no result within ${Math.round(timeoutMs / 1000)} s (platforms.webhook.run_timeout_ms); the turn may still finish in its session`,
      };
  }
}

export interface SettleRunDeps {
  readonly records: WebhookRunRecords;
  readonly logger: Logger;
  readonly deliverToChat: DeliverToChat | undefined;
  readonly deliveryAttempts: number;
  readonly deliveryRetryMs: number;
  readonly signal: AbortSignal;
  readonly now: () => number;
}

/**
 * Delivers a finished run's result through its durable record: only the process that takes the
 * record's delivery lease delivers (the live watcher and the outbox sweep of any gateway process
 * race for it), then the outcome and the delivery state are written. A delivery cut short by
 * shutdown is put back to `pending` for the next process. `taken`: someone else delivers (or
 * delivered) it.
 */
export async function settleRun(
  deps: SettleRunDeps,
  route: WebhookRoute,
  run: { readonly runId: string; readonly deliveryId: string },
  outcome: RunOutcome,
): Promise<'settled' | 'taken' | 'interrupted'> {
  const { records } = deps;
  if (!(await records.claimWebhookDelivery(run.runId, deps.now() + DELIVERY_LEASE_MS))) return 'taken';
  await records.updateWebhookRun(run.runId, {
    status: outcome.status,
    ...(outcome.result !== undefined ? { result: outcome.result } : {}),
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
  });
  const state = await deliverRunResult(route, run, outcome, {
    logger: deps.logger,
    deliverToChat: deps.deliverToChat,
    attempts: deps.deliveryAttempts,
    retryMs: deps.deliveryRetryMs,
    signal: deps.signal,
    now: deps.now,
  });
  if (state.status === 'failed' && deps.signal.aborted) {
    await records.updateWebhookRun(run.runId, { delivery: { status: 'pending' } });
    return 'interrupted';
  }
  await records.updateWebhookRun(run.runId, {
    delivery: state,
    ...(state.status === 'failed' ? { status: 'delivery_failed' } : {}),
  });
  if (state.status === 'failed') {
    deps.logger.error(
      { route: route.name, runId: run.runId, deliveryId: run.deliveryId, err: state.error },
      'webhook result could not be delivered',
    );
  }
  return 'settled';
}
