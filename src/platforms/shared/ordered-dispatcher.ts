import type { Logger } from 'pino';

/**
 * Hands a platform's events to the gateway in order, once, and gives up on one that keeps
 * failing — the part every chat adapter needs between "the platform sent an event" and
 * "the sink accepted it":
 *
 *   const dispatcher = createOrderedDispatcher({ logger, what: 'telegram update', maxFailures, describeError });
 *   const result = await dispatcher.dispatch(eventId, () => ({ lane: chatId, run: () => handOver(event) }));
 *   // result.outcome 'done': the platform may forget the event (move the offset, answer 200, ack it);
 *   //   result.answer is what `run` returned (a card callback's response), if anything
 *   // result.outcome 'failed': it must come again (keep the offset, answer 5xx, or retry it yourself)
 *
 * - Order: jobs of one lane (a chat, a thread) run one after another in dispatch order; lanes do
 *   not wait for each other; a job without a lane (a button press, an interaction the platform
 *   wants answered within seconds) runs at once.
 * - Once: the same event id while it is in flight gets the same result (answer included); an id
 *   that ended `done` recently (the last `memory` ids) is `done` at once, without an answer.
 * - Failures: a job that throws is `failed` and counted per id; at `maxFailures` the event is
 *   skipped on purpose — logged as an error, `giveUp()` called (tell the user; what it returns is
 *   the answer), and `done`.
 * - Not ready: `prepare` returning undefined (the adapter does not know its own identity yet)
 *   is `failed` without counting.
 */

export type DispatchOutcome = 'done' | 'failed';

export type DispatchResult<A> =
  | { readonly outcome: 'done'; readonly answer: A | undefined }
  | { readonly outcome: 'failed' };

export interface DispatchJob<A = void> {
  /** Jobs of one lane run in order; omit for jobs that must never wait. */
  readonly lane?: string;
  /** Hands the event over and returns its answer, if the platform wants one; throws when it was not accepted. */
  readonly run: () => Promise<A>;
  /** Called once when the event is skipped after `maxFailures` failures (should not throw). */
  readonly giveUp?: () => Promise<A>;
}

export interface OrderedDispatcherOptions {
  readonly logger: Logger;
  /** What an event is called in logs (`telegram update`). */
  readonly what: string;
  /** Failed attempts of one event before it is skipped on purpose. */
  readonly maxFailures: number;
  /** An error as log text, without secrets (a bot token in a URL). */
  readonly describeError: (error: unknown) => string;
  /** How many finished ids (and failure counts) are remembered; default 2,048. */
  readonly memory?: number;
}

export interface OrderedDispatcher {
  dispatch<A = void>(eventId: string, prepare: () => DispatchJob<A> | undefined): Promise<DispatchResult<A>>;
  /** Resolves when nothing is in flight. */
  idle(): Promise<void>;
}

export function createOrderedDispatcher(options: OrderedDispatcherOptions): OrderedDispatcher {
  const { logger, what } = options;
  const memory = options.memory ?? 2_048;
  const lanes = new Map<string, Promise<unknown>>();
  const inFlight = new Map<string, Promise<DispatchResult<unknown>>>();
  const recent = new Set<string>();
  const failures = new Map<string, number>();

  /** Keeps insertion order as age order: a re-set moves a key to the end. */
  function bounded<K>(map: Map<K, unknown> | Set<K>): void {
    while (map.size > memory) {
      const oldest = map.keys().next();
      if (oldest.done === true) break;
      map.delete(oldest.value);
    }
  }

  async function attempt<A>(eventId: string, job: DispatchJob<A>): Promise<DispatchResult<A>> {
    try {
      return { outcome: 'done', answer: await job.run() };
    } catch (error) {
      const count = (failures.get(eventId) ?? 0) + 1;
      failures.delete(eventId);
      failures.set(eventId, count);
      bounded(failures);
      if (count >= options.maxFailures) {
        logger.error(
          { eventId, attempts: count, err: options.describeError(error) },
          `${what} skipped after repeated failures; it will not be delivered again`,
        );
        return { outcome: 'done', answer: await job.giveUp?.() };
      }
      logger.warn(
        { eventId, attempt: count, err: options.describeError(error) },
        `${what} not accepted; it will be delivered again`,
      );
      return { outcome: 'failed' };
    }
  }

  async function run<A>(
    eventId: string,
    prepare: () => DispatchJob<A> | undefined,
  ): Promise<DispatchResult<A>> {
    const job = prepare();
    if (job === undefined) return { outcome: 'failed' };
    const lane = job.lane;
    if (lane === undefined) return attempt(eventId, job);
    const previous = lanes.get(lane) ?? Promise.resolve();
    const current = previous.then(
      () => attempt(eventId, job),
      () => attempt(eventId, job),
    );
    lanes.set(lane, current);
    try {
      return await current;
    } finally {
      if (lanes.get(lane) === current) lanes.delete(lane);
    }
  }

  return {
    dispatch<A>(eventId: string, prepare: () => DispatchJob<A> | undefined): Promise<DispatchResult<A>> {
      if (recent.has(eventId)) return Promise.resolve({ outcome: 'done', answer: undefined });
      // The same id runs one job, whose answer type its callers share.
      const running = inFlight.get(eventId) as Promise<DispatchResult<A>> | undefined;
      if (running !== undefined) return running;
      const outcome = run(eventId, prepare).then((result) => {
        if (result.outcome === 'done') {
          recent.add(eventId);
          failures.delete(eventId);
          bounded(recent);
        }
        return result;
      });
      inFlight.set(eventId, outcome);
      void outcome.finally(() => inFlight.delete(eventId));
      return outcome;
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight.values()]);
    },
  };
}
