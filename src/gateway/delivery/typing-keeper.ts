import type { Logger } from 'pino';
import { type ChatAddress, type PlatformAdapter, PlatformError } from '../../platforms/adapter.js';

export interface TypingKeeperOptions {
  readonly logger: Logger;
  /** How often the indicator is refreshed (ms); platforms drop it after ~5 s. Default 4000. */
  readonly intervalMs?: number;
  /** Safety net for a keeper nobody stops (ms); default 1 hour. */
  readonly maxDurationMs?: number;
}

export interface TypingKeeper {
  /** Stops refreshing until `resume()` (e.g. while an approval prompt waits). */
  pause(): void;
  /** Shows the indicator again at once and keeps refreshing it. No-op unless paused. */
  resume(): void;
  /** For good; idempotent. */
  stop(): void;
}

/**
 * Keeps "typing…" visible in a chat while a turn runs: shown at once, then refreshed every
 * `intervalMs`. Failures are logged and swallowed; one the platform will repeat every time
 * (forbidden, chat not found) stops the keeper. At most one call is in flight.
 */
export function createTypingKeeper(
  adapter: PlatformAdapter,
  to: ChatAddress,
  options: TypingKeeperOptions,
): TypingKeeper {
  const { logger } = options;
  const intervalMs = Math.max(1, options.intervalMs ?? 4000);
  const maxDurationMs = options.maxDurationMs ?? 60 * 60 * 1000;
  const startedAt = Date.now();
  let stopped = !adapter.limits.supportsTyping;
  let paused = false;
  let inFlight = false;
  let timer: NodeJS.Timeout | undefined;

  function clear(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  }

  function stop(): void {
    stopped = true;
    clear();
  }

  function send(): void {
    if (inFlight) return;
    inFlight = true;
    let call: Promise<void>;
    try {
      call = adapter.sendTyping(to);
    } catch (error) {
      call = Promise.reject(error);
    }
    call
      .catch((error: unknown) => {
        const permanent = error instanceof PlatformError && !error.retryable;
        const log = { platform: adapter.platform, chatId: to.chatId, err: (error as Error)?.message };
        if (permanent) {
          logger.warn(log, 'typing indicator refused; not trying again for this turn');
          stop();
        } else {
          logger.debug(log, 'typing indicator failed');
        }
      })
      .finally(() => {
        inFlight = false;
      });
  }

  function tick(): void {
    timer = undefined;
    if (stopped || paused) return;
    if (Date.now() - startedAt > maxDurationMs) {
      logger.warn(
        { platform: adapter.platform, chatId: to.chatId },
        'typing keeper was never stopped; stopping it',
      );
      stop();
      return;
    }
    send();
    timer = setTimeout(tick, intervalMs);
    timer.unref?.();
  }

  tick();
  return {
    pause: () => {
      if (stopped) return;
      paused = true;
      clear();
    },
    resume: () => {
      if (stopped || !paused) return;
      paused = false;
      tick();
    },
    stop,
  };
}
