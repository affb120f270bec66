import type { Logger } from 'pino';
import type { TurnEndOutbox, WebhookRunRecord, WebhookRunRecords } from '../webhook-run-records.js';
import type { DeliverToChat } from './deliver-run-result.js';
import { outcomeOf, settleRun } from './settle-run.js';
import type { WebhookRoute } from './validate-webhook-routes.js';

export interface RunResultSweepDeps {
  readonly records: WebhookRunRecords;
  readonly turnEnds: TurnEndOutbox;
  readonly routes: readonly WebhookRoute[];
  readonly logger: Logger;
  readonly deliverToChat: DeliverToChat | undefined;
  readonly deliveryAttempts: number;
  readonly deliveryRetryMs: number;
  readonly runTimeoutMs: number;
  /** Run records older than this are deleted, ms. */
  readonly runTtlMs: number;
  readonly now: () => number;
}

export interface RunResultSweep {
  /** One pass over the recorded turn ends older than `minAgeMs`; a pass already running is joined. */
  run(minAgeMs: number): Promise<void>;
  /** No further passes; stops delivery retries; resolves when the running pass has ended. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Delivers webhook results whose live event this process did not handle: the process that
 * accepted the delivery restarted, or its watch missed the event. Each turn end the runner
 * recorded for the `webhook` platform is matched to its run record by inbound event id; a run
 * still `pending` is settled through the record's delivery lease (so a live watcher elsewhere and
 * this sweep never both deliver it), and the turn end is then marked done.
 */
export function createRunResultSweep(deps: RunResultSweepDeps): RunResultSweep {
  const shutdown = new AbortController();
  const routes = new Map(deps.routes.map((route) => [route.name, route]));
  let running: Promise<void> | undefined;
  let stopped = false;

  async function runOf(eventIds: readonly string[]): Promise<WebhookRunRecord | undefined> {
    for (const eventId of eventIds) {
      const run = await deps.records.findWebhookRunByEvent(eventId);
      if (run !== undefined) return run;
    }
    return undefined;
  }

  async function pass(minAgeMs: number): Promise<void> {
    const ends = await deps.turnEnds.listTurnEnds('webhook', { olderThan: deps.now() - minAgeMs });
    for (const recorded of ends) {
      if (stopped) return;
      const run = await runOf(recorded.eventIds);
      if (run === undefined || run.delivery.status !== 'pending') {
        await deps.turnEnds.completeTurnEnd(recorded.id);
        continue;
      }
      const route = routes.get(run.route);
      if (route === undefined) {
        await deps.records.updateWebhookRun(run.runId, {
          status: 'delivery_failed',
          delivery: { status: 'failed', attempts: 0, error: `route "${run.route}" is no longer configured` },
        });
        await deps.turnEnds.completeTurnEnd(recorded.id);
        continue;
      }
      deps.logger.info({ route: run.route, runId: run.runId }, 'delivering a webhook result from the outbox');
      const settled = await settleRun(
        { ...deps, signal: shutdown.signal },
        route,
        run,
        outcomeOf(recorded.end, deps.runTimeoutMs),
      );
      if (settled === 'settled') await deps.turnEnds.completeTurnEnd(recorded.id);
    }
    await deps.records.pruneWebhookRuns(deps.now() - deps.runTtlMs);
  }

  return {
    run(minAgeMs) {
      if (stopped) return Promise.resolve();
      running ??= pass(minAgeMs)
        .catch((error: unknown) =>
          deps.logger.warn({ err: (error as Error).message }, 'webhook result sweep failed'),
        )
        .finally(() => {
          running = undefined;
        });
      return running;
    },
    async stop() {
      stopped = true;
      shutdown.abort(new Error('shutting down'));
      await running;
    },
  };
}
