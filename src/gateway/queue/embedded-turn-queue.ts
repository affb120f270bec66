import type { Logger } from 'pino';
import { HermesError } from '../../errors/hermes-error.js';
import { waitAtMost } from '../../lib/abortable-sleep.js';
import { timeOrderedId } from '../../lib/time-ordered-id.js';
import { DedupeWindow } from './dedupe-window.js';
import { isSteerable, nextTurnLength, parseInboxItem, steerablePrefixLength } from './inbox-item.js';
import { runTurnAttempts, type TurnOutcome } from './run-turn-attempts.js';
import { abortTurn } from './turn-abort.js';
import {
  type BusyInputMode,
  type InboxItem,
  QUEUE_DEFAULTS,
  type QueueSettings,
  resolveQueueSettings,
  type StartWorkersOptions,
  type SubmitResult,
  type TurnFailedHandler,
  type TurnHandler,
  type TurnQueue,
  type TurnQueueOptions,
} from './turn-queue.js';

export interface EmbeddedTurnQueueOptions extends TurnQueueOptions {
  /** Clock for the dedupe window (tests move it by hand). */
  readonly now?: () => number;
  /** Event ids remembered at most; the oldest are forgotten first. Default 100 000. */
  readonly maxDedupeEntries?: number;
}

interface ActiveTurn {
  readonly controller: AbortController;
  readonly items: InboxItem[];
  done: Promise<void>;
}

/** Everything the queue knows about one session; dropped as soon as the session is idle. */
interface Lane {
  readonly sessionKey: string;
  inbox: InboxItem[];
  turn: ActiveTurn | undefined;
  scheduled: boolean;
}

interface Consumer {
  readonly handler: TurnHandler;
  readonly onFailed: TurnFailedHandler;
  readonly concurrency: number;
}

/**
 * The zero-setup queue: everything lives in this process. Same contract as the BullMQ queue,
 * except that nothing survives the process — at shutdown, items that will never run are
 * reported through `onFailed` (code `queue_closed`) so the gateway can tell the users.
 */
export function createEmbeddedTurnQueue(options: EmbeddedTurnQueueOptions): TurnQueue {
  return new EmbeddedTurnQueue(options);
}

class EmbeddedTurnQueue implements TurnQueue {
  readonly kind = 'embedded' as const;
  readonly #logger: Logger;
  readonly #mode: BusyInputMode;
  readonly #settings: QueueSettings;
  readonly #dedupe: DedupeWindow;
  readonly #lanes = new Map<string, Lane>();
  readonly #ready: Lane[] = [];
  readonly #reports = new Set<Promise<void>>();
  #consumer: Consumer | undefined;
  #running = 0;
  #waiting = 0;
  #closing: Promise<void> | undefined;

  constructor(options: EmbeddedTurnQueueOptions) {
    this.#logger = options.logger.child({ component: 'turn-queue', queue: 'embedded' });
    this.#mode = options.busyInputMode ?? QUEUE_DEFAULTS.busyInputMode;
    this.#settings = resolveQueueSettings(options);
    this.#dedupe = new DedupeWindow({
      windowMs: this.#settings.dedupeWindowMs,
      maxEntries: options.maxDedupeEntries ?? 100_000,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  }

  async submit(raw: InboxItem): Promise<SubmitResult> {
    if (this.#closing) throw new HermesError('queue_closed', 'the turn queue is closed');
    const item = parseInboxItem(raw);
    if (item.dedupe !== false && !this.#dedupe.firstSeen(`${item.sessionKey}\0${item.eventId}`)) {
      return { status: 'duplicate' };
    }
    let lane = this.#lanes.get(item.sessionKey);
    if (lane === undefined) {
      lane = { sessionKey: item.sessionKey, inbox: [], turn: undefined, scheduled: false };
      this.#lanes.set(item.sessionKey, lane);
    }
    lane.inbox.push(item);
    this.#waiting += 1;
    if (lane.turn === undefined) {
      this.#schedule(lane);
      this.#pump();
      return { status: 'started' };
    }
    // A solo turn (an API request) is neither steered nor interrupted by what arrives meanwhile.
    if (!isSteerable(item) || this.#mode === 'queue' || lane.turn.items[0]?.solo === true) {
      return { status: 'queued' };
    }
    if (this.#mode === 'steer') return { status: 'steered' };
    abortTurn(lane.turn.controller, 'interrupt');
    return { status: 'interrupting' };
  }

  async interrupt(sessionKey: string): Promise<boolean> {
    if (this.#closing) throw new HermesError('queue_closed', 'the turn queue is closed');
    const turn = this.#lanes.get(sessionKey)?.turn;
    if (turn === undefined) return false;
    abortTurn(turn.controller, 'interrupt');
    return true;
  }

  async startWorkers(handler: TurnHandler, options: StartWorkersOptions): Promise<void> {
    if (this.#closing) throw new HermesError('queue_closed', 'the turn queue is closed');
    if (this.#consumer) throw new HermesError('queue_failed', 'startWorkers was already called');
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new HermesError(
        'queue_failed',
        `concurrency must be a positive integer, got ${options.concurrency}`,
      );
    }
    this.#consumer = { handler, onFailed: options.onFailed, concurrency: options.concurrency };
    this.#pump();
  }

  async depth(): Promise<number> {
    return this.#waiting;
  }

  activeTurns(): number {
    return this.#running;
  }

  async runningSessions(sessionKeys: readonly string[]): Promise<ReadonlySet<string>> {
    return new Set(sessionKeys.filter((key) => this.#lanes.get(key)?.turn !== undefined));
  }

  async health(): Promise<{ ok: boolean; reason?: string }> {
    if (this.#closing) return { ok: false, reason: 'closed' };
    if (!this.#consumer) return { ok: false, reason: 'workers not started' };
    return { ok: true };
  }

  close(options: { graceMs?: number } = {}): Promise<void> {
    this.#closing ??= this.#shutdown(options.graceMs ?? this.#settings.shutdownGraceMs);
    return this.#closing;
  }

  async #shutdown(graceMs: number): Promise<void> {
    const running = () => Promise.all([...this.#lanes.values()].flatMap((lane) => lane.turn?.done ?? []));
    if (!(await waitAtMost(running(), graceMs))) {
      for (const lane of this.#lanes.values()) if (lane.turn) abortTurn(lane.turn.controller, 'shutdown');
      if (!(await waitAtMost(running(), this.#settings.abortWaitMs))) {
        this.#logger.warn('closing with turn handlers that ignored the shutdown abort');
      }
    }
    this.#ready.length = 0;
    for (const lane of this.#lanes.values()) {
      if (lane.turn === undefined) this.#abandon(lane);
    }
    await waitAtMost(Promise.all(this.#reports), this.#settings.abortWaitMs);
    this.#dedupe.clear();
  }

  #schedule(lane: Lane): void {
    if (lane.scheduled || lane.turn) return;
    lane.scheduled = true;
    this.#ready.push(lane);
  }

  #pump(): void {
    const consumer = this.#consumer;
    if (!consumer || this.#closing) return;
    while (this.#running < consumer.concurrency) {
      const lane = this.#ready.shift();
      if (lane === undefined) return;
      lane.scheduled = false;
      if (lane.turn === undefined && lane.inbox.length > 0) this.#startTurn(lane, consumer);
    }
  }

  #startTurn(lane: Lane, consumer: Consumer): void {
    const items = lane.inbox.splice(0, nextTurnLength(lane.inbox));
    this.#waiting -= items.length;
    const turn: ActiveTurn = { controller: new AbortController(), items, done: Promise.resolve() };
    lane.turn = turn;
    this.#running += 1;
    let attempt = 1;
    let failures = 0;
    turn.done = runTurnAttempts({
      turnId: timeOrderedId(),
      sessionKey: lane.sessionKey,
      items,
      attempt,
      failures,
      controller: turn.controller,
      handler: consumer.handler,
      onFailed: consumer.onFailed,
      maxAttempts: this.#settings.maxAttempts,
      backoffMs: this.#settings.backoffMs,
      maxBackoffMs: this.#settings.maxBackoffMs,
      logger: this.#logger,
      takeSteering: async () => this.#takeSteering(lane, turn),
      attemptFailed: async () => {
        failures += 1;
        return failures;
      },
      beginAttempt: async () => {
        attempt += 1;
        return attempt;
      },
    })
      .catch((error: unknown) => {
        this.#logger.error({ err: error, sessionKey: lane.sessionKey }, 'turn loop failed');
        return 'done' as const;
      })
      .then((outcome) => this.#turnEnded(lane, turn, outcome));
  }

  #takeSteering(lane: Lane, turn: ActiveTurn): readonly InboxItem[] {
    if (this.#mode !== 'steer' || lane.turn !== turn || turn.controller.signal.aborted) return [];
    // A solo item is a turn of its own: nothing joins it.
    if (turn.items[0]?.solo === true) return [];
    const taken = lane.inbox.splice(0, steerablePrefixLength(lane.inbox));
    this.#waiting -= taken.length;
    turn.items.push(...taken);
    return taken;
  }

  #turnEnded(lane: Lane, turn: ActiveTurn, outcome: TurnOutcome): void {
    lane.turn = undefined;
    this.#running -= 1;
    if (this.#closing) {
      if (outcome === 'shutdown') this.#report(lane.sessionKey, turn.items);
      this.#abandon(lane);
      return;
    }
    if (lane.inbox.length > 0) this.#schedule(lane);
    else this.#lanes.delete(lane.sessionKey);
    this.#pump();
  }

  /** Reports a lane's waiting items as never run and forgets the lane. */
  #abandon(lane: Lane): void {
    const items = lane.inbox;
    lane.inbox = [];
    this.#waiting -= items.length;
    this.#lanes.delete(lane.sessionKey);
    if (items.length > 0) this.#report(lane.sessionKey, items);
  }

  #report(sessionKey: string, items: readonly InboxItem[]): void {
    const onFailed = this.#consumer?.onFailed;
    if (!onFailed) {
      this.#logger.warn({ sessionKey, items: items.length }, 'queue closed with items that never ran');
      return;
    }
    const error = new HermesError('queue_closed', 'the gateway shut down before this message was handled');
    const report = (async () => {
      try {
        await onFailed(sessionKey, items, error);
      } catch (reportError) {
        this.#logger.error({ err: reportError, sessionKey }, 'onFailed threw');
      }
    })();
    this.#reports.add(report);
    void report.finally(() => this.#reports.delete(report));
  }
}
