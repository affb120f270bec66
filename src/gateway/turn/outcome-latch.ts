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
  #outcome: TurnOutcomeKind | undefined;
  #failureCode: TurnFailedEvent['code'] | undefined;

  constructor(events: TurnEvents) {
    this.#events = events;
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
    await this.#events.final(event);
  }

  async parked(event: TurnParkedEvent): Promise<void> {
    this.#claim('parked', event.turnId);
    await this.#events.parked(event);
  }

  async failed(event: TurnFailedEvent): Promise<void> {
    this.#claim('failed', event.turnId);
    this.#failureCode = event.code;
    await this.#events.failed(event);
  }

  /** Sends the fallback failure when nothing was emitted. */
  async ensure(fallback: () => TurnFailedEvent): Promise<void> {
    if (this.#outcome === undefined) await this.failed(fallback());
  }
}
