/**
 * What `GET /webhooks/<route>/runs/<id>` reports when the webhook platform runs without the
 * gateway's store (embedded): records live in this process' memory, at most `maxRuns` of them
 * for `ttlMs` each (the oldest go first). Inside the gateway the durable records
 * (platforms/webhook-run-records.ts) are read first.
 */
export type RunStatus = 'queued' | 'running' | 'done' | 'failed' | 'delivery_failed';

export type DeliveryState =
  | { readonly status: 'pending' }
  | { readonly status: 'delivered'; readonly attempts: number }
  | { readonly status: 'logged' }
  /** The answer was empty or `[SILENT]`: nothing to deliver. */
  | { readonly status: 'skipped' }
  | { readonly status: 'failed'; readonly attempts: number; readonly error: string };

export interface WebhookRun {
  readonly runId: string;
  readonly route: string;
  readonly deliveryId: string;
  readonly sessionKey: string;
  readonly createdAt: number;
  updatedAt: number;
  status: RunStatus;
  result?: string;
  error?: string;
  delivery: DeliveryState;
}

export interface WebhookRuns {
  add(run: WebhookRun): void;
  get(runId: string): WebhookRun | undefined;
  /** Applies a change to a run that is still kept; a forgotten run is left alone. */
  update(runId: string, change: (run: WebhookRun) => void): void;
  remove(runId: string): void;
  size(): number;
}

export function createWebhookRuns(options: {
  readonly maxRuns: number;
  readonly ttlMs: number;
  readonly now: () => number;
}): WebhookRuns {
  const runs = new Map<string, WebhookRun>();

  function sweep(): void {
    const cutoff = options.now() - options.ttlMs;
    for (const [id, run] of runs) {
      if (run.createdAt > cutoff) break; // insertion order = creation order
      runs.delete(id);
    }
    while (runs.size > options.maxRuns) {
      const oldest = runs.keys().next();
      if (oldest.done === true) break;
      runs.delete(oldest.value);
    }
  }

  return {
    add(run) {
      runs.set(run.runId, run);
      sweep();
    },
    get(runId) {
      sweep();
      return runs.get(runId);
    },
    update(runId, change) {
      const run = runs.get(runId);
      if (run === undefined) return;
      change(run);
      run.updatedAt = options.now();
    },
    remove(runId) {
      runs.delete(runId);
    },
    size: () => runs.size,
  };
}

/** The public view of a run (JSON for the status endpoint). */
export function describeRun(run: WebhookRun): Record<string, unknown> {
  return {
    run_id: run.runId,
    route: run.route,
    delivery_id: run.deliveryId,
    session_key: run.sessionKey,
    status: run.status,
    ...(run.result !== undefined ? { result: run.result } : {}),
    ...(run.error !== undefined ? { error: run.error } : {}),
    delivery: run.delivery,
    created_at: new Date(run.createdAt).toISOString(),
    updated_at: new Date(run.updatedAt).toISOString(),
  };
}
