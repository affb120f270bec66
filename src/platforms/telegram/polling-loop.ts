import { type Api, GrammyError } from 'grammy';
import type { Logger } from 'pino';
import { pause } from '../../lib/abortable-sleep.js';
import { backoffDelay } from '../../lib/backoff-delay.js';
import { errorMessage } from './telegram-errors.js';
import { ALLOWED_UPDATES, type TelegramUpdate, telegramUpdateSchema } from './telegram-update.js';
import type { DispatchOutcome } from './update-dispatcher.js';

export interface PollingOptions {
  readonly api: Api;
  readonly token: string;
  readonly logger: Logger;
  /** Long-poll wait per getUpdates, seconds. */
  readonly timeoutSeconds: number;
  /** First backoff after a failure, ms (doubles up to `maxBackoffMs`). */
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  readonly dispatch: (update: TelegramUpdate) => Promise<DispatchOutcome>;
  /** Called before each poll until it succeeds (getMe, deleteWebhook); false means "try again later". */
  readonly ready: () => Promise<boolean>;
  /** Reports a problem (shown by health) or its end (`undefined`). */
  readonly report: (problem: string | undefined) => void;
}

export interface PollingLoop {
  /** Resolves when the loop has ended and the last offset was confirmed. */
  stop(): Promise<void>;
}

/** grammY's Node typings name the abort-controller shim's signal; a native one works the same. */
type GrammySignal = Parameters<Api['getUpdates']>[1];
const asGrammySignal = (signal: AbortSignal): GrammySignal => signal as unknown as GrammySignal;

/**
 * Long polling with a durable offset. Telegram forgets an update only when a later getUpdates
 * passes an offset above its id, so the offset moves past an update only once the gateway
 * answered it (accepted, rejected or answered); an update the gateway failed on stays below the
 * offset and comes back with the next poll, after a backoff. Updates of different chats are
 * handled concurrently; an update still in flight when the poll returns is not handed over
 * twice. 409 conflicts (another poller, or a webhook) and network failures are logged, shown in
 * health and retried with backoff; the loop never throws.
 */
export function startPolling(options: PollingOptions): PollingLoop {
  const { api, logger, token } = options;
  const controller = new AbortController();
  const signal = controller.signal;
  const outcomes = new Map<number, Promise<DispatchOutcome> | DispatchOutcome>();
  let offset: number | undefined;
  let confirmed: number | undefined;
  let failures = 0;
  let lastProblem: string | undefined;

  const backoff = () => backoffDelay(failures, options.backoffMs, options.maxBackoffMs);

  function problem(text: string | undefined, logLevel: 'warn' | 'error' = 'warn', err?: string): void {
    options.report(text);
    if (text !== undefined && text !== lastProblem) logger[logLevel]({ err }, text);
    if (text === undefined && lastProblem !== undefined) logger.info('telegram polling works again');
    lastProblem = text;
  }

  /** Moves the offset past the run of finished updates from the lowest id; true when that run ends in a failure. */
  function advance(): boolean {
    let failed = false;
    for (const id of [...outcomes.keys()].sort((a, b) => a - b)) {
      const outcome = outcomes.get(id);
      if (outcome === 'done') {
        outcomes.delete(id);
        offset = id + 1;
        continue;
      }
      if (outcome === 'failed') {
        failed = true;
        outcomes.delete(id); // fetched and handed over again with the next poll
      }
      break; // the offset never passes an update that is not finished
    }
    return failed;
  }

  async function fetchUpdates(): Promise<unknown[] | undefined> {
    const busy = outcomes.size > 0;
    const timeout = busy ? 0 : options.timeoutSeconds;
    // A poll that outlives its own timeout by far is stalled: abort it and poll again.
    const stall = AbortSignal.timeout((timeout + 15) * 1000);
    try {
      const updates = await api.getUpdates(
        {
          ...(offset !== undefined ? { offset } : {}),
          timeout,
          limit: 100,
          allowed_updates: [...ALLOWED_UPDATES],
        },
        asGrammySignal(AbortSignal.any([signal, stall])),
      );
      confirmed = offset;
      failures = 0;
      problem(undefined);
      return updates;
    } catch (error) {
      if (signal.aborted) return undefined;
      failures += 1;
      const err = errorMessage(error, token);
      if (error instanceof GrammyError && error.error_code === 409) {
        if (/webhook/i.test(error.description)) {
          problem('telegram: a webhook is set for this bot; deleting it to poll', 'warn', err);
          await api.deleteWebhook().catch(() => undefined);
        } else {
          problem(
            'telegram 409 conflict: another instance is polling with this bot token; retrying',
            'error',
            err,
          );
        }
      } else if (error instanceof GrammyError && (error.error_code === 401 || error.error_code === 404)) {
        problem('telegram rejected the bot token (check TELEGRAM_BOT_TOKEN); retrying', 'error', err);
      } else if (stall.aborted) {
        problem('telegram polling stalled; polling again', 'warn', err);
      } else {
        problem('telegram polling failed; retrying with backoff', 'warn', err);
      }
      await pause(backoff(), signal);
      return undefined;
    }
  }

  function handOver(raw: unknown): void {
    const parsed = telegramUpdateSchema.safeParse(raw);
    const id =
      typeof raw === 'object' && raw !== null ? (raw as { update_id?: unknown }).update_id : undefined;
    if (!parsed.success) {
      if (typeof id === 'number' && !outcomes.has(id)) {
        logger.warn({ updateId: id }, 'telegram update malformed; skipped');
        outcomes.set(id, 'done');
      }
      return;
    }
    const update = parsed.data;
    if (outcomes.has(update.update_id) || (offset !== undefined && update.update_id < offset)) return;
    const running = options.dispatch(update).then((outcome) => {
      outcomes.set(update.update_id, outcome);
      return outcome;
    });
    outcomes.set(update.update_id, running);
  }

  async function loop(): Promise<void> {
    while (!signal.aborted) {
      if (!(await options.ready())) {
        failures += 1;
        await pause(backoff(), signal);
        continue;
      }
      const updates = await fetchUpdates();
      if (updates === undefined) continue;
      for (const raw of updates) handOver(raw);
      const running = [...outcomes.values()].filter(
        (o): o is Promise<DispatchOutcome> => typeof o !== 'string',
      );
      // Wait for what is in flight, but poll again after a second so one slow chat stalls no other.
      if (running.length > 0) await Promise.race([Promise.allSettled(running), pause(1_000, signal)]);
      if (advance()) {
        failures += 1;
        await pause(backoff(), signal);
      }
    }
  }

  const done = loop().catch((error: unknown) =>
    logger.error({ err: errorMessage(error, token) }, 'telegram polling ended unexpectedly'),
  );

  return {
    async stop() {
      controller.abort();
      await done;
      await Promise.allSettled([...outcomes.values()]);
      advance();
      if (offset !== undefined && offset !== confirmed) {
        // Confirm what was handled since the last poll, so a restart does not see it again.
        await api
          .getUpdates({ offset, limit: 1, timeout: 0 }, asGrammySignal(AbortSignal.timeout(5_000)))
          .catch((error: unknown) =>
            logger.debug({ err: errorMessage(error, token) }, 'telegram offset not confirmed at stop'),
          );
      }
    },
  };
}
