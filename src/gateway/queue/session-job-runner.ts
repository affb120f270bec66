import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { abortableSleep } from '../../lib/abortable-sleep.js';
import type { ClaimedTurn, ClaimReply, RedisSessionOps } from './redis-session-ops.js';
import { runTurnAttempts, type TurnOutcome } from './run-turn-attempts.js';
import type { SessionKeys } from './session-keys.js';
import { startLockRenewal } from './start-lock-renewal.js';
import { abortTurn } from './turn-abort.js';
import type { BusyInputMode, TurnFailedHandler, TurnHandler } from './turn-queue.js';

export interface SessionJobRunnerOptions {
  readonly ops: RedisSessionOps;
  readonly handler: TurnHandler;
  readonly onFailed: TurnFailedHandler;
  readonly mode: BusyInputMode;
  readonly lockMs: number;
  readonly stalledIntervalMs: number;
  readonly maxAttempts: number;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  /** Controllers of the turns running in this process, by turn id (interrupts find them here). */
  readonly active: Map<string, AbortController>;
  /** Fires when the queue starts closing: no new turns, hand work back. */
  readonly stop: AbortSignal;
  /** Adds a "session has work" job. */
  readonly addJob: (sessionKey: string) => Promise<void>;
  readonly logger: Logger;
}

/**
 * The slot a local-first run holds in its process: given up while the run's FINISH is in flight
 * (no turn runs meanwhile), taken back when FINISH hands it the session's next turn.
 */
export interface LocalRunSlot {
  release(): void;
  /** False when no slot is free any more: the next turn then goes back to Redis for a job. */
  retake(): boolean;
}

/**
 * What one BullMQ job does: take the session's lock and run its turns one after another until
 * the inbox is empty (or the queue closes, in which case the work is handed back with a new job).
 */
export class SessionJobRunner {
  readonly #options: SessionJobRunnerOptions;

  constructor(options: SessionJobRunnerOptions) {
    this.#options = options;
  }

  /** `recovered`: the job was brought back by BullMQ's stalled check (or retried). */
  async run(session: SessionKeys, recovered: boolean): Promise<void> {
    const { ops, lockMs, stop, addJob } = this.#options;
    if (stop.aborted) return addJob(session.sessionKey);
    const token = randomUUID();
    let reply = await ops.claim(session, token, lockMs);
    // A recovered job may race the dead holder's lock, which expires on its own clock: wait it out.
    if (reply.kind === 'busy' && recovered) reply = await this.#claimAfterStall(session, token);
    return this.#runFrom(session, token, reply);
  }

  /**
   * Runs a turn this process already claimed under `token` (a submit with a claim, local-first),
   * then the session's next turns as `run` does, holding `slot` only while a turn runs (a next
   * turn with no slot free is released to a job, as at shutdown: not counted as a failure). While
   * the queue closes, it hands the turn back.
   */
  async runClaimed(
    session: SessionKeys,
    token: string,
    turn: ClaimedTurn,
    slot?: LocalRunSlot,
  ): Promise<void> {
    if (this.#options.stop.aborted) {
      await this.#options.ops.release(session, token, { unrun: true });
      return this.#options.addJob(session.sessionKey);
    }
    return this.#runFrom(session, token, turn, slot);
  }

  async #runFrom(session: SessionKeys, token: string, first: ClaimReply, slot?: LocalRunSlot): Promise<void> {
    const { ops, lockMs, stop, addJob } = this.#options;
    let reply = first;
    while (reply.kind === 'turn') {
      const outcome = await this.#runTurn(session, token, reply);
      if (outcome === 'shutdown') await ops.release(session, token);
      if (outcome !== 'done') return addJob(session.sessionKey);
      slot?.release();
      reply = await ops.finish(session, token, lockMs, !stop.aborted);
      if (reply.kind === 'turn' && slot !== undefined && !slot.retake()) {
        await ops.release(session, token, { unrun: true });
        return addJob(session.sessionKey);
      }
    }
    if (reply.kind === 'pending' || reply.kind === 'lost') await addJob(session.sessionKey);
  }

  async #claimAfterStall(session: SessionKeys, token: string): Promise<ClaimReply> {
    const { ops, lockMs, stop, addJob } = this.#options;
    const deadline = Date.now() + lockMs * 2 + this.#options.stalledIntervalMs;
    const pause = Math.max(50, Math.min(250, Math.floor(lockMs / 4)));
    while (Date.now() < deadline) {
      try {
        await abortableSleep(pause, stop);
      } catch {
        await addJob(session.sessionKey);
        return { kind: 'busy' };
      }
      const reply = await ops.claim(session, token, lockMs);
      if (reply.kind !== 'busy') return reply;
    }
    return { kind: 'busy' };
  }

  async #runTurn(session: SessionKeys, token: string, turn: ClaimedTurn): Promise<TurnOutcome> {
    const { ops, lockMs, active, logger } = this.#options;
    const controller = new AbortController();
    active.set(turn.turnId, controller);
    const renewal = startLockRenewal({
      everyMs: Math.max(20, Math.floor(lockMs / 3)),
      renew: () => ops.renew(session, token, lockMs, turn.turnId),
      onState: (state) => {
        if (state === 'lost') abortTurn(controller, 'lock_lost');
        if (state === 'interrupt') abortTurn(controller, 'interrupt');
      },
      onError: (error) => logger.warn({ err: error }, 'lock renewal failed'),
    });
    const items = turn.items;
    try {
      return await runTurnAttempts({
        turnId: turn.turnId,
        sessionKey: session.sessionKey,
        items,
        attempt: turn.attempt,
        failures: turn.failures,
        controller,
        handler: this.#options.handler,
        onFailed: this.#options.onFailed,
        maxAttempts: this.#options.maxAttempts,
        backoffMs: this.#options.backoffMs,
        maxBackoffMs: this.#options.maxBackoffMs,
        logger,
        takeSteering: async () => {
          if (this.#options.mode !== 'steer' || controller.signal.aborted) return [];
          const taken = await ops.takeSteering(session, token);
          items.push(...taken);
          return taken;
        },
        attemptFailed: () => ops.attemptFailed(session, token),
        beginAttempt: () => ops.beginAttempt(session, token, lockMs),
      });
    } finally {
      renewal.stop();
      active.delete(turn.turnId);
    }
  }
}
