import type { Logger } from 'pino';
import {
  type ChatAddress,
  measureLength,
  type PlatformAdapter,
  PlatformError,
} from '../../platforms/adapter.js';
import type { TurnProgress } from '../turn/turn-events.js';

/** `display.tool_progress`: nothing, a line per distinct tool, or a line per tool call. */
export type ProgressMode = 'off' | 'new' | 'all';

export interface ProgressMessageOptions {
  readonly mode: ProgressMode;
  readonly logger: Logger;
  /** Least time between two edits (ms); default 1500. The final state is always sent. */
  readonly throttleMs?: number;
  /** Clock (epoch ms); default Date.now. */
  readonly now?: () => number;
}

export interface ProgressMessage {
  /** Takes a progress event of the turn; only `tool_started` shows. Never throws. */
  update(progress: TurnProgress): void;
  /** Sends the last state (at once, whatever the throttle) and stops; idempotent. */
  finish(): Promise<void>;
}

/** Longest argument preview on a line (code points). */
const PREVIEW_LIMIT = 60;

interface Line {
  readonly tool: string;
  readonly emoji: string;
  preview: string;
  calls: number;
}

/**
 * Tool progress as ONE message edited in place, never a flood: the first tool call sends it,
 * later calls edit it at most once per `throttleMs`. Without edits on the platform, or in mode
 * `off`, it shows nothing. A failure to send or edit turns it off for the rest of the turn
 * (a rate limit only delays the next edit).
 */
export function createProgressMessage(
  adapter: PlatformAdapter,
  to: ChatAddress,
  options: ProgressMessageOptions,
): ProgressMessage {
  const { mode, logger } = options;
  const throttleMs = options.throttleMs ?? 1500;
  const now = options.now ?? Date.now;
  const lines: Line[] = [];
  let disabled = mode === 'off' || !adapter.limits.supportsEdit;
  let finished = false;
  let dirty = false;
  let messageId: string | undefined;
  let nextEditAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> | undefined;

  function record(progress: TurnProgress): boolean {
    if (progress.kind !== 'tool_started') return false;
    const preview = shorten(progress.preview);
    const existing = mode === 'new' ? lines.find((line) => line.tool === progress.tool) : undefined;
    if (existing !== undefined) {
      existing.calls += 1;
      existing.preview = preview;
    } else {
      lines.push({ tool: progress.tool, emoji: progress.emoji, preview, calls: 1 });
    }
    return true;
  }

  function render(): string {
    const shown = lines.map((line) => {
      const head = `${line.emoji} ${line.tool}`.trim();
      const body = line.preview === '' ? head : `${head}: ${line.preview}`;
      return line.calls > 1 ? `${body} (×${line.calls})` : body;
    });
    const limit = adapter.limits.maxMessageLength;
    // Keep the newest lines that fit; say how many older ones are hidden.
    for (let dropped = 0; dropped < shown.length; dropped += 1) {
      const text = [...(dropped > 0 ? [`… ${dropped} earlier`] : []), ...shown.slice(dropped)].join('\n');
      if (measureLength(text, adapter.limits.lengthUnit) <= limit) return text;
    }
    return `… ${shown.length} tool calls`;
  }

  function disable(error: unknown, what: string): void {
    disabled = true;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    logger.debug(
      { platform: adapter.platform, chatId: to.chatId, err: (error as Error)?.message },
      `tool progress ${what} failed; no more progress for this turn`,
    );
  }

  async function flush(): Promise<void> {
    if (!dirty || disabled) return;
    dirty = false;
    const text = render();
    nextEditAt = now() + throttleMs;
    try {
      if (messageId === undefined) {
        messageId = (await adapter.sendText(to, { text, format: 'plain' })).messageId;
      } else {
        await adapter.editText(to, messageId, { text, format: 'plain' });
      }
    } catch (error) {
      if (messageId !== undefined && error instanceof PlatformError && error.code === 'rate_limited') {
        dirty = true; // try again later with whatever is current then
        nextEditAt = now() + Math.max(throttleMs, error.retryAfterMs ?? 0);
        return;
      }
      disable(error, messageId === undefined ? 'message' : 'edit');
    }
  }

  function runFlush(): void {
    const current = flush().finally(() => {
      flushing = undefined;
      if (dirty && !finished) schedule();
    });
    flushing = current;
  }

  function schedule(): void {
    if (disabled || finished || timer !== undefined || flushing !== undefined) return;
    const wait = messageId === undefined ? 0 : Math.max(0, nextEditAt - now());
    if (wait === 0) {
      runFlush();
      return;
    }
    timer = setTimeout(() => {
      timer = undefined;
      runFlush();
    }, wait);
    timer.unref?.();
  }

  return {
    update: (progress) => {
      if (disabled || finished) return;
      try {
        if (!record(progress)) return;
        dirty = true;
        schedule();
      } catch (error) {
        disable(error, 'update');
      }
    },
    finish: async () => {
      if (finished) {
        await flushing;
        return;
      }
      finished = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await flushing;
      await flush();
    },
  };
}

function shorten(preview: string): string {
  const oneLine = preview.replace(/\s+/g, ' ').trim();
  const chars = [...oneLine];
  return chars.length <= PREVIEW_LIMIT ? oneLine : `${chars.slice(0, PREVIEW_LIMIT - 1).join('')}…`;
}
