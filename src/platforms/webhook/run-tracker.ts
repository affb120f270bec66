import type { Logger } from 'pino';
import { waitAtMost } from '../../lib/abortable-sleep.js';
import type { TurnEnd, TurnWatcher } from '../ingress.js';
import type { WebhookRunRecords } from '../webhook-run-records.js';
import { type DeliverToChat, deliverRunResult } from './deliver-run-result.js';
import { outcomeOf, settleRun } from './settle-run.js';
import type { WebhookRoute } from './validate-webhook-routes.js';
import type { WebhookRuns } from './webhook-runs.js';

export interface RunTrackerDeps {
  /** The webhook platform's turns (`ingress.watchTurns('webhook')`). */
  readonly turns: TurnWatcher;
  readonly logger: Logger;
  readonly runs: WebhookRuns;
  /**
   * The durable run records: with them a result is delivered through the record's delivery lease
   * (see settle-run.ts), and a run still open at shutdown is left for the outbox sweep of the next
   * gateway process instead of being marked failed.
   */
  readonly records?: WebhookRunRecords | undefined;
  readonly deliverToChat: DeliverToChat | undefined;
  readonly runTimeoutMs: number;
  readonly deliveryAttempts: number;
  readonly deliveryRetryMs: number;
  readonly now: () => number;
}

export interface TrackedRun {
  readonly runId: string;
  readonly deliveryId: string;
  readonly sessionKey: string;
  readonly eventId: string;
  readonly route: WebhookRoute;
}

/** A watch that is listening; `begin()` once the item is queued, `cancel()` if it could not be. */
export interface RunWatch {
  begin(): void;
  cancel(): Promise<void>;
}

export interface RunTracker {
  /** Subscribes to the run's session BEFORE its item is submitted, so no event is missed. */
  watch(run: TrackedRun): Promise<RunWatch>;
  /**
   * Lets runs still in flight finish (and deliver) for up to `graceMs`, then stops watching,
   * stops callback retries and marks what is left as failed. Idempotent.
   */
  close(graceMs: number): Promise<void>;
}

/**
 * Follows each accepted delivery's turn on the event bus: `running` at its first progress
 * event, `done` / `failed` at its end, then delivers the result as the route says and records
 * how that went.
 */
export function createRunTracker(deps: RunTrackerDeps): RunTracker {
  const { turns } = deps;
  const { runs } = deps;
  const shutdown = new AbortController();
  const inFlight = new Map<
    string,
    { cancel(): Promise<void>; settled: Promise<void>; delivering: boolean }
  >();
  let closing: Promise<void> | undefined;

  async function finish(run: TrackedRun, end: TurnEnd): Promise<void> {
    const outcome = outcomeOf(end, deps.runTimeoutMs);
    if (deps.records !== undefined) {
      runs.remove(run.runId);
      await settleRun(
        {
          records: deps.records,
          logger: deps.logger,
          deliverToChat: deps.deliverToChat,
          deliveryAttempts: deps.deliveryAttempts,
          deliveryRetryMs: deps.deliveryRetryMs,
          signal: shutdown.signal,
          now: deps.now,
        },
        run.route,
        run,
        outcome,
      );
      return;
    }
    runs.update(run.runId, (record) => {
      record.status = outcome.status;
      if (outcome.result !== undefined) record.result = outcome.result;
      if (outcome.error !== undefined) record.error = outcome.error;
      record.delivery = { status: 'pending' };
    });
    const state = await deliverRunResult(run.route, run, outcome, {
      logger: deps.logger,
      deliverToChat: deps.deliverToChat,
      attempts: deps.deliveryAttempts,
      retryMs: deps.deliveryRetryMs,
      signal: shutdown.signal,
      now: deps.now,
    });
    runs.update(run.runId, (record) => {
      record.delivery = state;
      if (state.status === 'failed') record.status = 'delivery_failed';
    });
    if (state.status === 'failed') {
      deps.logger.error(
        { route: run.route.name, runId: run.runId, deliveryId: run.deliveryId, err: state.error },
        'webhook result could not be delivered',
      );
    }
  }

  return {
    async watch(run) {
      const watcher = await turns.watch({
        eventId: run.eventId,
        timeoutMs: deps.runTimeoutMs,
        onProgress: () => {
          const record = runs.get(run.runId);
          if (record?.status !== 'queued') return;
          record.status = 'running';
          void deps.records
            ?.updateWebhookRun(run.runId, { status: 'running' })
            .catch((error: Error) =>
              deps.logger.warn({ runId: run.runId, err: error.message }, 'webhook run status not saved'),
            );
        },
      });
      return {
        begin() {
          const settled = watcher.done
            .then((end) => {
              const entry = inFlight.get(run.runId);
              if (entry !== undefined) entry.delivering = true;
              return finish(run, end);
            })
            .catch((error: unknown) =>
              deps.logger.error(
                { runId: run.runId, err: (error as Error).message },
                'webhook run tracking failed',
              ),
            )
            .finally(() => inFlight.delete(run.runId));
          inFlight.set(run.runId, { cancel: async () => watcher.cancel(), settled, delivering: false });
        },
        cancel: async () => watcher.cancel(),
      };
    },
    close(graceMs) {
      closing ??= (async () => {
        const all = Promise.all([...inFlight.values()].map((entry) => entry.settled));
        if (inFlight.size > 0) await waitAtMost(all, graceMs);
        shutdown.abort(new Error('shutting down'));
        for (const [runId, entry] of inFlight) {
          if (entry.delivering) continue;
          inFlight.delete(runId);
          await entry.cancel();
          // A durable run is finished by the next gateway process (from the outbox).
          if (deps.records !== undefined) continue;
          runs.update(runId, (record) => {
            if (record.status === 'queued' || record.status === 'running') {
              record.status = 'failed';
              record.error = 'the gateway shut down before the run finished; its result was not delivered';
            }
          });
        }
        // Runs that were delivering stop at their next retry; give them a moment to record it.
        await waitAtMost(Promise.all([...inFlight.values()].map((entry) => entry.settled)), 1_000);
      })();
      return closing;
    },
  };
}
