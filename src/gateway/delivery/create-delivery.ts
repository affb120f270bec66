import type { Logger } from 'pino';
import { abortableSleep } from '../../lib/abortable-sleep.js';
import {
  type ActionPrompt,
  type ChatAddress,
  type LengthUnit,
  type PlatformAdapter,
  PlatformError,
} from '../../platforms/adapter.js';
import type { DeliveryFailureStore } from '../store/delivery-failure-store.js';
import type { DeliveryReceiptStore } from '../store/ledger-store.js';
import { failureNotice } from './failure-notice.js';
import { createProgressMessage, type ProgressMessage, type ProgressMode } from './progress-message.js';
import { type RetryPolicy, sendWithRetry } from './send-with-retry.js';
import { splitMessage } from './split-message.js';
import { createTypingKeeper, type TypingKeeper, type TypingKeeperOptions } from './typing-keeper.js';

export type DeliveryStore = DeliveryReceiptStore & DeliveryFailureStore;

export interface DeliveryOptions {
  readonly store: DeliveryStore;
  readonly logger: Logger;
  /** Clock (epoch ms) for failure records; default Date.now. */
  readonly now?: () => number;
  /** Waits between attempts; tests pass one that returns at once. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Calls per part in total, the first included; default 5. */
  readonly maxAttempts?: number;
  /** First backoff delay (ms), doubled per failure; default 1000. */
  readonly baseDelayMs?: number;
  /** Backoff cap (ms); default 30 000. */
  readonly maxDelayMs?: number;
  /** Longest platform `retry_after` waited for (ms); longer means the send fails. Default 120 000. */
  readonly maxRetryAfterMs?: number;
  /** Jitter source in [0, 1); default Math.random. */
  readonly random?: () => number;
  /** Append ` (1/3)` … to split answers; default false. */
  readonly partIndicators?: boolean;
}

export interface DeliverTextInput {
  readonly adapter: PlatformAdapter;
  readonly to: ChatAddress;
  readonly sessionKey: string;
  /** Identifies this answer (the turn id): part `i` is recorded as `<receiptKey>:<i>`. */
  readonly receiptKey: string;
  readonly text: string;
  /** The first part replies to this platform message. */
  readonly replyToMessageId?: string;
  readonly format?: 'plain' | 'markdown';
  readonly signal?: AbortSignal;
}

export type DeliveryResult =
  /** Nothing to send: the text is empty or blank. The caller decides what the chat sees instead. */
  | { readonly status: 'empty' }
  | {
      readonly status: 'delivered';
      readonly parts: number;
      /** Parts sent by this call. */
      readonly sent: number;
      /** Parts a receipt showed as delivered before (a re-run). */
      readonly skipped: number;
      readonly messageIds: readonly string[];
    }
  | {
      readonly status: 'failed';
      readonly parts: number;
      readonly sent: number;
      readonly skipped: number;
      readonly messageIds: readonly string[];
      /** Index of the part that could not be sent; later parts were not tried. */
      readonly failedPart: number;
      readonly error: string;
    };

export interface SendPromptInput {
  readonly adapter: PlatformAdapter;
  readonly to: ChatAddress;
  readonly sessionKey: string;
  readonly prompt: ActionPrompt;
  readonly signal?: AbortSignal;
}

export type PromptSendResult =
  | { readonly status: 'sent'; readonly messageId: string }
  /** The platform refused the prompt for good (a bad request, forbidden…): asking again changes nothing. */
  | { readonly status: 'refused'; readonly error: string }
  /** Still failing after the retries (an outage, a rate limit, a lost answer): worth showing later. */
  | { readonly status: 'failed'; readonly error: string };

export interface Delivery {
  /** Splits, sends with retries and receipts; never throws for platform failures (store failures do). */
  deliverText(input: DeliverTextInput): Promise<DeliveryResult>;
  /**
   * Shows a prompt with its buttons, retried like a part of an answer (no receipt: the caller
   * records the prompt's message id); never throws for platform failures.
   */
  sendPrompt(input: SendPromptInput): Promise<PromptSendResult>;
  /** `createTypingKeeper` with this delivery's logger. */
  keepTyping(
    adapter: PlatformAdapter,
    to: ChatAddress,
    options?: Omit<TypingKeeperOptions, 'logger'>,
  ): TypingKeeper;
  /** `createProgressMessage` with this delivery's logger. */
  progress(adapter: PlatformAdapter, to: ChatAddress, mode: ProgressMode): ProgressMessage;
}

/**
 * Outbound answers. Each part of an answer gets a receipt once the platform accepted it, so a
 * retried or resumed turn that delivers the same answer again sends only what is missing. An
 * answer that fails for good is recorded per chat and announced before the next answer there.
 */
export function createDelivery(options: DeliveryOptions): Delivery {
  const { store, logger } = options;
  const now = options.now ?? Date.now;
  const neverAborted = new AbortController().signal;
  const policy: RetryPolicy = {
    maxAttempts: Math.max(1, options.maxAttempts ?? 5),
    baseDelayMs: options.baseDelayMs ?? 1000,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 120_000,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? ((ms, signal) => abortableSleep(ms, signal ?? neverAborted)),
  };
  // Deliveries of one receipt key run one after the other, so a re-emitted answer arriving while
  // the first delivery is still sending waits and then finds the receipts.
  const running = new Map<string, Promise<unknown>>();

  async function announceFailures(input: DeliverTextInput): Promise<void> {
    const { adapter, to } = input;
    let failures: Awaited<ReturnType<DeliveryStore['takeDeliveryFailures']>>;
    try {
      failures = await store.takeDeliveryFailures(adapter.platform, to.chatId);
    } catch (error) {
      logger.warn(
        { platform: adapter.platform, chatId: to.chatId, err: errorText(error) },
        'cannot read delivery failures',
      );
      return;
    }
    // A failure of this very answer is settled by delivering it now.
    const earlier = failures.filter((failure) => failure.turnId !== input.receiptKey);
    if (earlier.length === 0) return;
    const notice = splitMessage(failureNotice(earlier.length), limitsOf(adapter));
    let result: Awaited<ReturnType<typeof sendWithRetry>> = { ok: true, value: undefined, attempts: 0 };
    for (const text of notice) {
      result = await sendWithRetry(
        () => adapter.sendText(to, { text, format: 'plain' }),
        policy,
        input.signal,
      );
      if (!result.ok) break;
    }
    if (result.ok) {
      logger.info(
        {
          platform: adapter.platform,
          chatId: to.chatId,
          sessionKey: input.sessionKey,
          count: earlier.length,
        },
        'told the chat about earlier undelivered answers',
      );
      return;
    }
    for (const failure of earlier) {
      try {
        await store.recordDeliveryFailure(failure); // put back: tell them next time
      } catch (error) {
        logger.error(
          { sessionKey: failure.sessionKey, err: errorText(error) },
          'lost a delivery failure record',
        );
      }
    }
  }

  async function deliver(input: DeliverTextInput): Promise<DeliveryResult> {
    const { adapter, to, receiptKey, sessionKey } = input;
    const parts = splitMessage(input.text, {
      ...limitsOf(adapter),
      partIndicators: options.partIndicators === true,
    });
    if (parts.length === 0) return { status: 'empty' };
    const partKey = (index: number) => `${receiptKey}:${index}`;
    const receipts = await Promise.all(parts.map((_, index) => store.getDelivery(partKey(index))));
    const messageIds: string[] = receipts.flatMap((receipt) => receipt?.messageIds ?? []);
    const skipped = receipts.filter((receipt) => receipt !== undefined).length;
    if (skipped === parts.length)
      return { status: 'delivered', parts: parts.length, sent: 0, skipped, messageIds };

    await announceFailures(input);
    let sent = 0;
    for (const [index, text] of parts.entries()) {
      if (receipts[index] !== undefined) continue;
      const replyTo = index === 0 ? input.replyToMessageId : undefined;
      const result = await sendWithRetry(
        () =>
          adapter.sendText(to, {
            text,
            ...(input.format === undefined ? {} : { format: input.format }),
            ...(replyTo === undefined ? {} : { replyToMessageId: replyTo }),
            idempotencyKey: partKey(index),
          }),
        policy,
        input.signal,
      );
      if (!result.ok) {
        const code = result.error instanceof PlatformError ? result.error.code : 'unknown';
        const error = `${code}: ${result.reason}`;
        logger.error(
          {
            sessionKey,
            platform: adapter.platform,
            chatId: to.chatId,
            receiptKey,
            part: index,
            parts: parts.length,
            attempts: result.attempts,
            code,
            err: errorText(result.error),
          },
          'answer could not be delivered',
        );
        try {
          await store.recordDeliveryFailure({
            platform: adapter.platform,
            chatId: to.chatId,
            sessionKey,
            turnId: receiptKey,
            error,
            at: now(),
          });
        } catch (storeError) {
          logger.error(
            { sessionKey, receiptKey, err: errorText(storeError) },
            'cannot record a delivery failure',
          );
        }
        return { status: 'failed', parts: parts.length, sent, skipped, messageIds, failedPart: index, error };
      }
      sent += 1;
      messageIds.push(result.value.messageId);
      try {
        await store.recordDelivery({
          receiptKey: partKey(index),
          platform: adapter.platform,
          chatId: to.chatId,
          messageIds: [result.value.messageId],
        });
      } catch (error) {
        // Sent but not recorded: a later re-run would send this part again. Say so and go on.
        logger.error(
          { sessionKey, receiptKey, part: index, err: errorText(error) },
          'cannot record a delivery receipt',
        );
      }
    }
    return { status: 'delivered', parts: parts.length, sent, skipped, messageIds };
  }

  return {
    deliverText: async (input) => {
      if (input.text.trim() === '') return { status: 'empty' };
      const previous = running.get(input.receiptKey);
      const current = (previous ?? Promise.resolve()).catch(() => undefined).then(() => deliver(input));
      running.set(input.receiptKey, current);
      try {
        return await current;
      } finally {
        if (running.get(input.receiptKey) === current) running.delete(input.receiptKey);
      }
    },
    async sendPrompt(input) {
      const { adapter, to, prompt } = input;
      const result = await sendWithRetry(() => adapter.sendPrompt(to, prompt), policy, input.signal);
      if (result.ok) return { status: 'sent', messageId: result.value.messageId };
      const code = result.error instanceof PlatformError ? result.error.code : 'unknown';
      const error = `${code}: ${result.reason}`;
      const refused =
        result.error instanceof PlatformError && !result.error.retryable && !result.error.maybeDelivered;
      logger.warn(
        {
          sessionKey: input.sessionKey,
          platform: adapter.platform,
          chatId: to.chatId,
          attempts: result.attempts,
          code,
          err: errorText(result.error),
        },
        refused ? 'the platform refused a prompt' : 'a prompt could not be shown yet',
      );
      return refused ? { status: 'refused', error } : { status: 'failed', error };
    },
    keepTyping: (adapter, to, typingOptions = {}) =>
      createTypingKeeper(adapter, to, { ...typingOptions, logger }),
    progress: (adapter, to, mode) => createProgressMessage(adapter, to, { mode, logger }),
  };
}

function limitsOf(adapter: PlatformAdapter): { maxLength: number; unit: LengthUnit } {
  return { maxLength: adapter.limits.maxMessageLength, unit: adapter.limits.lengthUnit };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
