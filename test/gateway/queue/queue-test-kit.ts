import { turnAbortReason } from '../../../src/gateway/queue/turn-abort.js';
import type { InboxItem, TurnContext, TurnHandler } from '../../../src/gateway/queue/turn-queue.js';

/** Polls `condition` until it holds; fails with `what` after a generous deadline. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await sleep(10);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
}

export function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Resolves when the signal fires. */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

export function makeItem(sessionKey: string, eventId: string, overrides: Partial<InboxItem> = {}): InboxItem {
  return {
    sessionKey,
    eventId,
    kind: 'message',
    text: `text of ${eventId}`,
    receivedAt: Date.now(),
    ...overrides,
  };
}

export interface RecordedTurn {
  readonly turnId: string;
  readonly sessionKey: string;
  readonly eventIds: readonly string[];
  readonly attempt: number;
  abortReason?: string;
  steered: string[];
  ended: boolean;
}

/**
 * A handler that records every call and lets a test script what each turn does through
 * `behave(turn, record)`; the default just returns.
 */
export function recorder(behave?: (turn: TurnContext, record: RecordedTurn) => Promise<void>): {
  handler: TurnHandler;
  turns: RecordedTurn[];
  handled(sessionKey?: string): string[];
} {
  const turns: RecordedTurn[] = [];
  const handler: TurnHandler = async (turn) => {
    const record: RecordedTurn = {
      turnId: turn.turnId,
      sessionKey: turn.sessionKey,
      eventIds: turn.items.map((item) => item.eventId),
      attempt: turn.attempt,
      steered: [],
      ended: false,
    };
    turns.push(record);
    try {
      if (behave) await behave(turn, record);
    } finally {
      record.abortReason = turnAbortReason(turn.signal);
      record.ended = true;
    }
  };
  const handled = (sessionKey?: string) =>
    turns
      .filter((turn) => turn.ended && (sessionKey === undefined || turn.sessionKey === sessionKey))
      .flatMap((turn) => [...turn.eventIds, ...turn.steered]);
  return { handler, turns, handled };
}

export interface FailureRecord {
  readonly sessionKey: string;
  readonly eventIds: readonly string[];
  readonly error: unknown;
}

export function failures(): {
  onFailed: (sessionKey: string, items: readonly InboxItem[], error: unknown) => void;
  list: FailureRecord[];
} {
  const list: FailureRecord[] = [];
  return {
    list,
    onFailed: (sessionKey, items, error) => {
      list.push({ sessionKey, eventIds: items.map((item) => item.eventId), error });
    },
  };
}
