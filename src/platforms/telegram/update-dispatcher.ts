import type { Logger } from 'pino';
import type { InboundAction, InboundEvent, InboundResult, InboundSink } from '../adapter.js';
import { errorMessage } from './telegram-errors.js';
import type { TelegramUpdate } from './telegram-update.js';
import { type Attachment, type BotIdentity, translateUpdate } from './translate-update.js';

/** `done`: the platform may forget the update (confirm the offset, answer 200); `failed`: deliver it again. */
export type DispatchOutcome = 'done' | 'failed';

export interface UpdateDispatcherOptions {
  readonly logger: Logger;
  readonly token: string;
  readonly identity: () => BotIdentity | undefined;
  readonly sink: () => InboundSink | undefined;
  readonly now: () => number;
  /** Failed attempts of one update before it is skipped on purpose (logged). */
  readonly maxFailures: number;
  readonly answerAction: (action: InboundAction, notice: string) => Promise<void>;
  readonly answerCallback: (callbackQueryId: string, notice: string) => Promise<void>;
  readonly withAttachment: (event: InboundEvent, attachment: Attachment) => Promise<InboundEvent>;
}

export interface UpdateDispatcher {
  /**
   * Hands one update to the gateway: button presses at once, everything else in order within
   * its chat (or forum topic). The same update id while it is in flight gets the same answer;
   * one that recently succeeded is not handed over again.
   */
  dispatch(update: TelegramUpdate): Promise<DispatchOutcome>;
  /** Resolves when nothing is in flight. */
  idle(): Promise<void>;
}

const RECENT_CAP = 2_048;
const SKIPPED_NOTICE = 'Sorry — this button press could not be handled. Please try again.';

export function createUpdateDispatcher(options: UpdateDispatcherOptions): UpdateDispatcher {
  const { logger, token } = options;
  const lanes = new Map<string, Promise<unknown>>();
  const inFlight = new Map<number, Promise<DispatchOutcome>>();
  const recent = new Set<number>();
  const failures = new Map<number, number>();

  function remember(updateId: number): void {
    recent.add(updateId);
    failures.delete(updateId);
    if (recent.size > RECENT_CAP) {
      const oldest = recent.values().next();
      if (!oldest.done) recent.delete(oldest.value);
    }
  }

  async function answerQuietly(run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      logger.warn({ err: errorMessage(error, token) }, 'telegram callback query not answered');
    }
  }

  async function handOver(event: InboundEvent, attachment: Attachment | undefined): Promise<InboundResult> {
    const sink = options.sink();
    if (sink === undefined) throw new Error('the telegram adapter is not started');
    const full = attachment === undefined ? event : await options.withAttachment(event, attachment);
    return sink(full);
  }

  async function run(update: TelegramUpdate): Promise<DispatchOutcome> {
    const identity = options.identity();
    if (identity === undefined) return 'failed';
    const translation = translateUpdate(update, identity, options.now());
    if (translation.kind === 'skip') {
      logger.debug({ updateId: update.update_id, reason: translation.reason }, 'telegram update skipped');
      const callbackId = translation.callbackQueryId;
      if (callbackId !== undefined) await answerQuietly(() => options.answerCallback(callbackId, ''));
      return 'done';
    }
    const { event, lane, attachment } = translation;
    const attempt = async (): Promise<DispatchOutcome> => {
      try {
        const result = await handOver(event, attachment);
        if (event.kind === 'action') {
          const notice = result.status === 'answered' ? result.notice : '';
          await answerQuietly(() => options.answerAction(event, notice));
        }
        return 'done';
      } catch (error) {
        const count = (failures.get(update.update_id) ?? 0) + 1;
        failures.delete(update.update_id);
        failures.set(update.update_id, count);
        if (failures.size > RECENT_CAP) {
          const oldest = failures.keys().next();
          if (!oldest.done) failures.delete(oldest.value);
        }
        if (count >= options.maxFailures) {
          logger.error(
            { updateId: update.update_id, attempts: count, err: errorMessage(error, token) },
            'telegram update skipped after repeated failures; it will not be delivered again',
          );
          if (event.kind === 'action') await answerQuietly(() => options.answerAction(event, SKIPPED_NOTICE));
          return 'done';
        }
        logger.warn(
          { updateId: update.update_id, attempt: count, err: errorMessage(error, token) },
          'telegram update not accepted; it will be delivered again',
        );
        return 'failed';
      }
    };
    // Button presses never wait behind the chat's other events.
    if (event.kind === 'action') return attempt();
    const previous = lanes.get(lane) ?? Promise.resolve();
    const current = previous.then(attempt, attempt);
    lanes.set(lane, current);
    try {
      return await current;
    } finally {
      if (lanes.get(lane) === current) lanes.delete(lane);
    }
  }

  return {
    dispatch(update) {
      if (recent.has(update.update_id)) return Promise.resolve('done');
      const running = inFlight.get(update.update_id);
      if (running !== undefined) return running;
      const outcome = run(update).then((result) => {
        if (result === 'done') remember(update.update_id);
        return result;
      });
      inFlight.set(update.update_id, outcome);
      void outcome.finally(() => inFlight.delete(update.update_id));
      return outcome;
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight.values()]);
    },
  };
}
