/** State of the fake Bot API: messages the bot sent, failure plans, and update delivery tracking. */

export interface FakeButton {
  readonly text: string;
  readonly data: string;
}

export interface FakeMessage {
  readonly messageId: number;
  readonly chatId: number;
  readonly threadId: number | undefined;
  /** What the chat shows (HTML parsed). */
  text: string;
  /** The text as sent (HTML when parseMode is set). */
  raw: string;
  parseMode: string | undefined;
  buttons: FakeButton[][];
  readonly replyTo: number | undefined;
  edits: number;
}

export interface RecordedCall {
  readonly method: string;
  readonly payload: Record<string, unknown>;
}

export interface FakeFailure {
  readonly code: number;
  readonly description: string;
  /** Seconds, for 429. */
  readonly retryAfter?: number;
  /** Calls in a row that fail; default 1. */
  readonly times?: number;
  /** Only calls whose payload matches fail. */
  readonly when?: (payload: Record<string, unknown>) => boolean;
  /**
   * Not an error: the call is carried out (a message is sent), but the connection is dropped
   * before the answer — the bot cannot know it went through. `code`/`description` are unused.
   */
  readonly dropAfterAccept?: boolean;
  /** Not an error: the call is carried out and answered after this many ms (a slow platform). */
  readonly delayMs?: number;
}

export type Ack = 'acknowledged' | 'not_acknowledged';

interface Delivery {
  attempts: number;
  acked: boolean;
  /** Outcome of each finished attempt (1-based index). */
  readonly results: Ack[];
  readonly waiters: { attempt: number; resolve: (ack: Ack) => void }[];
}

/** Tracks each update's delivery attempts and whether the bot acknowledged them. */
export class DeliveryTracker {
  readonly #deliveries = new Map<number, Delivery>();

  #get(updateId: number): Delivery {
    let delivery = this.#deliveries.get(updateId);
    if (delivery === undefined) {
      delivery = { attempts: 0, acked: false, results: [], waiters: [] };
      this.#deliveries.set(updateId, delivery);
    }
    return delivery;
  }

  #settle(delivery: Delivery): void {
    for (const waiter of [...delivery.waiters]) {
      const result = delivery.results[waiter.attempt - 1];
      if (result !== undefined) {
        delivery.waiters.splice(delivery.waiters.indexOf(waiter), 1);
        waiter.resolve(result);
      }
    }
  }

  /** The update goes out again (a poll returned it, or a webhook POST starts). */
  attempt(updateId: number): number {
    const delivery = this.#get(updateId);
    if (delivery.attempts > 0 && delivery.results[delivery.attempts - 1] === undefined) {
      delivery.results[delivery.attempts - 1] = 'not_acknowledged';
    }
    delivery.attempts += 1;
    delivery.acked = false;
    this.#settle(delivery);
    return delivery.attempts;
  }

  /** The latest attempt ended: acknowledged (offset passed it, HTTP 2xx) or not. */
  finish(updateId: number, ack: Ack): void {
    const delivery = this.#get(updateId);
    if (delivery.attempts === 0) return;
    if (delivery.results[delivery.attempts - 1] === undefined) delivery.results[delivery.attempts - 1] = ack;
    delivery.acked = ack === 'acknowledged';
    this.#settle(delivery);
  }

  attempts(updateId: number): number {
    return this.#deliveries.get(updateId)?.attempts ?? 0;
  }

  outcome(updateId: number, attempt: number): Promise<Ack> {
    const delivery = this.#get(updateId);
    const known = delivery.results[attempt - 1];
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve) => delivery.waiters.push({ attempt, resolve }));
  }
}

/** Failures programmed per method, used in order. */
export class FailurePlan {
  readonly #planned: { method: string; failure: FakeFailure; remaining: number }[] = [];

  add(method: string, failure: FakeFailure): void {
    this.#planned.push({ method, failure, remaining: failure.times ?? 1 });
  }

  clear(): void {
    this.#planned.length = 0;
  }

  take(method: string, payload: Record<string, unknown>): FakeFailure | undefined {
    const index = this.#planned.findIndex(
      (entry) => entry.method === method && (entry.failure.when === undefined || entry.failure.when(payload)),
    );
    const entry = this.#planned[index];
    if (entry === undefined) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.#planned.splice(index, 1);
    return entry.failure;
  }
}
