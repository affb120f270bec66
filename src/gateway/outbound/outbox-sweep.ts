import { backoffDelay } from '../../lib/backoff-delay.js';
import type { PlatformAdapter } from '../../platforms/adapter.js';
import type { ControlDeps } from '../control-deps.js';
import type { EventOrigin, GatewayEvent } from '../events/gateway-event.js';
import type { OutboxEntry } from '../store/outbox-entry.js';

/** How the outbox sweep paces itself. */
export interface OutboxSweepOptions {
  /** Between sweeps, ms; default 10 000. */
  readonly intervalMs?: number;
  /** Entries younger than this are left to their live event, ms; default 5 000. */
  readonly minAgeMs?: number;
  /** Sweep deliveries of one entry before it is abandoned; default 8. */
  readonly maxAttempts?: number;
  /** Wait after the first failed sweep delivery, doubled per further attempt, ms; default 15 000. */
  readonly retryBaseMs?: number;
  /** Cap of that wait, ms; default 10 minutes. */
  readonly retryMaxMs?: number;
}

export interface OutboxSweep {
  /**
   * Delivers pending entries of the running platforms older than `minAgeMs` (default: the
   * configured one); resolves when this pass is done. A pass already running is joined.
   */
  run(options?: { readonly minAgeMs?: number }): Promise<void>;
  /** No further passes; resolves when the running one has ended. */
  stop(): Promise<void>;
  readonly intervalMs: number;
}

/** Hands an event to the session's lane (ordered with live events) and resolves once handled. */
export type OutboxDispatch = (adapter: PlatformAdapter, event: GatewayEvent) => Promise<void>;

/**
 * Delivers answers whose live event this gateway missed. Each entry goes through the same
 * handling as the live event, in the session's lane, so receipts make a second delivery of the
 * same answer send nothing. An entry that cannot be delivered is tried again with growing waits
 * and abandoned after `maxAttempts` (logged with its session key; the chat is told about the
 * lost answer on its next contact, as with any failed delivery).
 */
export function createOutboxSweep(
  deps: Pick<ControlDeps, 'store' | 'logger' | 'now'>,
  adapters: ReadonlyMap<string, PlatformAdapter>,
  dispatch: OutboxDispatch,
  options: OutboxSweepOptions = {},
): OutboxSweep {
  const minAgeMs = options.minAgeMs ?? 5_000;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 8);
  const retryBaseMs = options.retryBaseMs ?? 15_000;
  const retryMaxMs = options.retryMaxMs ?? 10 * 60_000;
  let running: Promise<void> | undefined;
  let stopped = false;

  const due = (entry: OutboxEntry, now: number) =>
    entry.lastAttemptAt === undefined ||
    now - entry.lastAttemptAt >= backoffDelay(entry.attempts, retryBaseMs, retryMaxMs);

  async function deliver(adapter: PlatformAdapter, entry: OutboxEntry): Promise<void> {
    const attempts = await deps.store.markOutboxAttempt(entry.id);
    if (attempts === 0) return; // completed meanwhile
    deps.logger.info(
      { sessionKey: entry.sessionKey, turnId: entry.turnId, kind: entry.kind, attempts },
      'delivering an answer from the outbox',
    );
    await dispatch(adapter, eventOf(entry));
    const after = await deps.store.getOutbox(entry.id);
    if (after === undefined || after.completed !== undefined || attempts < maxAttempts) return;
    if (await deps.store.completeOutbox(entry.id, 'abandoned')) {
      deps.logger.error(
        { sessionKey: entry.sessionKey, turnId: entry.turnId, kind: entry.kind, attempts },
        'answer abandoned: it could not be delivered from the outbox',
      );
    }
  }

  async function pass(ageMs: number): Promise<void> {
    for (const adapter of adapters.values()) {
      try {
        const now = deps.now();
        const entries = await deps.store.listOutbox({ platform: adapter.platform, olderThan: now - ageMs });
        for (const entry of entries) {
          if (stopped) return;
          if (!due(entry, now)) continue;
          try {
            await deliver(adapter, entry);
          } catch (error) {
            deps.logger.warn(
              { sessionKey: entry.sessionKey, turnId: entry.turnId, err: (error as Error).message },
              'outbox entry not delivered',
            );
          }
        }
      } catch (error) {
        deps.logger.warn(
          { platform: adapter.platform, err: (error as Error).message },
          'outbox sweep failed',
        );
      }
    }
  }

  return {
    intervalMs: options.intervalMs ?? 10_000,
    run(runOptions = {}) {
      if (stopped) return Promise.resolve();
      running ??= pass(runOptions.minAgeMs ?? minAgeMs).finally(() => {
        running = undefined;
      });
      return running;
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** The turn event an outbox entry stands for. */
function eventOf(entry: OutboxEntry): GatewayEvent {
  const origin: EventOrigin = { ...entry.origin };
  const base = {
    turnId: entry.turnId,
    sessionKey: entry.sessionKey,
    eventIds: [...entry.eventIds],
    origin,
  };
  if (entry.kind === 'parked' && entry.prompt !== undefined) {
    const { reason, parkId, payload } = entry.prompt;
    return { type: 'parked', ...base, reason, parkId, payload };
  }
  return entry.kind === 'final'
    ? { type: 'final', ...base, text: entry.text }
    : { type: 'failed', ...base, code: 'recovered', message: entry.text };
}
