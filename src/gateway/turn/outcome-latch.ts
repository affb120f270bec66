import { HermesError } from '../../errors/hermes-error.js';
import type {
  TurnEvents,
  TurnFailedEvent,
  TurnFinalEvent,
  TurnOutcomeKind,
  TurnParkedEvent,
} from './turn-events.js';

/**
 * Lets exactly one terminal event out per turn: a second `final`/`parked`/`failed` for the same
 * turn is a bug and throws before anything reaches the sink. `ensure` is called when a turn's
 * code returns: if nothing was emitted (a path that forgot to), it sends an `internal` failure,
 * so the user never waits in silence.
 */
export class OutcomeLatch {
  readonly #events: TurnEvents;
  readonly #eventIds: readonly string[];
  #outcome: TurnOutcomeKind | undefined;
  #failureCode: TurnFailedEvent['code'] | undefined;

  /** `eventIds`: the queue turn's inbound event ids, a live list (steering adds to it). */
  constructor(events: TurnEvents, eventIds: readonly string[] = []) {
    this.#events = events;
    this.#eventIds = eventIds;
  }

  /** A copy of the turn's inbound event ids as they are now; every event of the turn carries it. */
  get eventIds(): readonly string[] {
    return [...this.#eventIds];
  }

  get outcome(): TurnOutcomeKind | undefined {
    return this.#outcome;
  }

  get failureCode(): TurnFailedEvent['code'] | undefined {
    return this.#failureCode;
  }

  #claim(kind: TurnOutcomeKind, turnId: string): void {
    if (this.#outcome !== undefined) {
      throw new HermesError(
        'turn_failed',
        `turn ${turnId} tried to end twice (${this.#outcome}, then ${kind}); the second outcome was not sent`,
      );
    }
    this.#outcome = kind;
  }

  async final(event: TurnFinalEvent): Promise<void> {
    this.#claim('final', event.turnId);
    await this.#events.final({ ...event, eventIds: this.eventIds });
  }

  async parked(event: TurnParkedEvent): Promise<void> {
    this.#claim('parked', event.turnId);
    await this.#events.parked({ ...event, eventIds: this.eventIds });
  }

  async failed(event: TurnFailedEvent): Promise<void> {
    this.#claim('failed', event.turnId);
    this.#failureCode = event.code;
    await this.#events.failed({ ...event, eventIds: this.eventIds });
  }

  /** Sends the fallback failure when nothing was emitted. */
  async ensure(fallback: () => TurnFailedEvent): Promise<void> {
    if (this.#outcome === undefined) await this.failed(fallback());
  }
}
