import { fail, type MethodResult, ok } from './fake-methods.js';
import { type Ack, DeliveryTracker } from './fake-state.js';

export interface FakeWebhook {
  readonly url: string;
  readonly secret: string | undefined;
}

/**
 * Updates waiting for the bot, delivered the way Telegram does: by getUpdates (an offset
 * confirms every update below it; one long poll at a time) or, with a webhook set, by POSTs
 * that count as delivered only on a 2xx answer.
 */
export class FakeUpdateQueue {
  readonly tracker = new DeliveryTracker();
  readonly #pending = new Map<number, Record<string, unknown>>();
  readonly #history = new Map<number, Record<string, unknown>>();
  readonly #waiters = new Set<() => void>();
  #activePoll: ((result: MethodResult) => void) | undefined;
  #webhook: FakeWebhook | undefined;
  #nextId = 100;
  #closed = false;

  get webhook(): FakeWebhook | undefined {
    return this.#webhook;
  }

  get size(): number {
    return this.#pending.size;
  }

  push(update: Record<string, unknown>, updateId?: number): number {
    const id = updateId ?? this.#nextId;
    this.#nextId = Math.max(this.#nextId, id + 1);
    const full = { update_id: id, ...update };
    this.#pending.set(id, full);
    this.#history.set(id, full);
    this.#deliver(id);
    return id;
  }

  /** Hands an update out again: Telegram lost the confirmation (polling) or retries (webhook). */
  redeliver(updateId: number): void {
    const update = this.#history.get(updateId);
    if (update === undefined) throw new Error(`update ${updateId} was never pushed`);
    const wasPending = this.#pending.has(updateId);
    this.#pending.set(updateId, update);
    if (this.#webhook !== undefined || !wasPending) this.#deliver(updateId);
  }

  setWebhook(webhook: FakeWebhook | undefined): void {
    this.#webhook = webhook;
    if (webhook === undefined) return;
    this.#activePoll?.(fail(409, 'Conflict: terminated by setWebhook request'));
    for (const id of this.#pending.keys()) void this.#post(id);
  }

  close(): void {
    this.#closed = true;
    for (const waiter of [...this.#waiters]) waiter();
  }

  #deliver(updateId: number): void {
    if (this.#webhook !== undefined) void this.#post(updateId);
    else for (const waiter of [...this.#waiters]) waiter();
  }

  async #post(updateId: number): Promise<void> {
    const update = this.#pending.get(updateId);
    const webhook = this.#webhook;
    if (webhook === undefined || update === undefined) return;
    this.tracker.attempt(updateId);
    let ack: Ack = 'not_acknowledged';
    try {
      const response = await fetch(webhook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(webhook.secret !== undefined ? { 'x-telegram-bot-api-secret-token': webhook.secret } : {}),
        },
        body: JSON.stringify(update),
      });
      await response.arrayBuffer();
      if (response.ok) ack = 'acknowledged';
    } catch {
      ack = 'not_acknowledged';
    }
    if (ack === 'acknowledged') this.#pending.delete(updateId);
    this.tracker.finish(updateId, ack);
  }

  /** getUpdates: confirms below `offset`, then answers at once or long-polls up to `timeout` s. */
  getUpdates(payload: Record<string, unknown>, gone: AbortSignal): Promise<MethodResult> {
    if (this.#webhook !== undefined) {
      return Promise.resolve(
        fail(
          409,
          "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        ),
      );
    }
    const offset = typeof payload['offset'] === 'number' ? payload['offset'] : undefined;
    if (offset !== undefined) {
      for (const id of [...this.#pending.keys()]) {
        if (id < offset) {
          this.#pending.delete(id);
          this.tracker.finish(id, 'acknowledged');
        }
      }
    }
    const limit = typeof payload['limit'] === 'number' ? payload['limit'] : 100;
    const take = () =>
      [...this.#pending.entries()]
        .sort(([a], [b]) => a - b)
        .slice(0, limit)
        .map(([id, update]) => {
          this.tracker.attempt(id);
          return update;
        });
    if (this.#pending.size > 0 || this.#closed) return Promise.resolve(ok(take()));
    const timeout = typeof payload['timeout'] === 'number' ? payload['timeout'] : 0;
    if (timeout <= 0) return Promise.resolve(ok([]));
    // One long poll at a time, like Telegram: a newer poll ends the older one with 409.
    this.#activePoll?.(
      fail(
        409,
        'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      ),
    );
    return new Promise<MethodResult>((resolve) => {
      const finish = (result: MethodResult) => {
        clearTimeout(timer);
        this.#waiters.delete(onUpdate);
        if (this.#activePoll === finish) this.#activePoll = undefined;
        resolve(result);
      };
      const onUpdate = () => finish(ok(take()));
      const timer = setTimeout(() => finish(ok([])), timeout * 1000);
      this.#waiters.add(onUpdate);
      this.#activePoll = finish;
      // A client that gave up (aborted its poll) gets nothing: updates stay for the next poll.
      gone.addEventListener('abort', () => finish(ok([])), { once: true });
    });
  }
}
