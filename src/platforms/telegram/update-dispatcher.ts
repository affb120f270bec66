import type { Logger } from 'pino';
import type { InboundAction, InboundEvent, InboundSink } from '../adapter.js';
import { createOrderedDispatcher, type DispatchOutcome } from '../shared/ordered-dispatcher.js';
import { errorMessage } from './telegram-errors.js';
import type { TelegramUpdate } from './telegram-update.js';
import { type Attachment, type BotIdentity, translateUpdate } from './translate-update.js';

export type { DispatchOutcome };

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
   * one that recently succeeded is not handed over again (shared/ordered-dispatcher.ts).
   */
  dispatch(update: TelegramUpdate): Promise<DispatchOutcome>;
  /** Resolves when nothing is in flight. */
  idle(): Promise<void>;
}

const SKIPPED_NOTICE = 'Sorry — this button press could not be handled. Please try again.';

/** Telegram updates through the shared ordered dispatcher: translation, attachments, callback answers. */
export function createUpdateDispatcher(options: UpdateDispatcherOptions): UpdateDispatcher {
  const { logger, token } = options;
  const dispatcher = createOrderedDispatcher({
    logger,
    what: 'telegram update',
    maxFailures: options.maxFailures,
    describeError: (error) => errorMessage(error, token),
  });

  async function answerQuietly(run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      logger.warn({ err: errorMessage(error, token) }, 'telegram callback query not answered');
    }
  }

  async function handOver(event: InboundEvent, attachment: Attachment | undefined): Promise<void> {
    const sink = options.sink();
    if (sink === undefined) throw new Error('the telegram adapter is not started');
    const full = attachment === undefined ? event : await options.withAttachment(event, attachment);
    const result = await sink(full);
    if (event.kind === 'action') {
      const notice = result.status === 'answered' ? result.notice : '';
      await answerQuietly(() => options.answerAction(event, notice));
    }
  }

  return {
    async dispatch(update) {
      const result = await dispatcher.dispatch(String(update.update_id), () => {
        const identity = options.identity();
        if (identity === undefined) return undefined;
        const translation = translateUpdate(update, identity, options.now());
        if (translation.kind === 'skip') {
          logger.debug({ updateId: update.update_id, reason: translation.reason }, 'telegram update skipped');
          const callbackId = translation.callbackQueryId;
          return {
            run: async () => {
              if (callbackId !== undefined) await answerQuietly(() => options.answerCallback(callbackId, ''));
            },
          };
        }
        const { event, lane, attachment } = translation;
        return {
          // Button presses never wait behind the chat's other events.
          ...(event.kind === 'action' ? {} : { lane }),
          run: () => handOver(event, attachment),
          ...(event.kind === 'action'
            ? { giveUp: () => answerQuietly(() => options.answerAction(event, SKIPPED_NOTICE)) }
            : {}),
        };
      });
      return result.outcome;
    },
    idle: () => dispatcher.idle(),
  };
}
