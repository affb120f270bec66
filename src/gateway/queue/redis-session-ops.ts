import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { RedisScript } from '../../lib/redis-script.js';
import { runScript } from '../../lib/redis-script.js';
import { timeOrderedId } from '../../lib/time-ordered-id.js';
import { decodeInboxItem, encodeInboxItem } from './inbox-item.js';
import type { QueueKeys, SessionKeys } from './session-keys.js';
import {
  ATTEMPT_FAILED,
  BEGIN_ATTEMPT,
  CLAIM,
  FINISH,
  INTERRUPT,
  lifecycleKeys,
  RELEASE,
  RENEW,
  SUBMIT,
  SUBMIT_CLAIM,
  SWEEP_ONE,
  TAKE_STEERING,
} from './session-scripts.js';
import type { BusyInputMode, InboxItem, SubmitStatus } from './turn-queue.js';

/** A turn handed to this worker by CLAIM or FINISH. */
export interface ClaimedTurn {
  readonly kind: 'turn';
  readonly turnId: string;
  readonly attempt: number;
  readonly failures: number;
  readonly items: InboxItem[];
}

export type ClaimReply = ClaimedTurn | { readonly kind: 'busy' | 'idle' | 'pending' | 'lost' };

export interface SubmitReply {
  readonly status: SubmitStatus;
  /** No turn holds the session: a job must be added so a worker picks the item up. */
  readonly scheduleJob: boolean;
  /** Turn to interrupt (busy mode `interrupt`). */
  readonly interruptTurnId?: string;
  /** Submitted with a claim and nobody held the session: it is the caller's, lock and all, to run. */
  readonly claimed?: ClaimedTurn;
}

/** Asks `submit` to take the session for the caller when the item would otherwise schedule a job. */
export interface SubmitClaim {
  readonly token: string;
  readonly lockMs: number;
}

const submitStatus = z.enum(['started', 'queued', 'steered', 'interrupting', 'duplicate']);
const submitReply = z.tuple([submitStatus, z.number(), z.string().optional()]);
const claimedSubmitReply = z.tuple([
  submitStatus,
  z.literal(2),
  z.literal('turn'),
  z.string(),
  z.number(),
  z.number(),
  z.array(z.string()),
]);
const turnReply = z.tuple([z.literal('turn'), z.string(), z.number(), z.number(), z.array(z.string())]);
const simpleReply = z.tuple([z.enum(['busy', 'idle', 'pending', 'lost'])]);
const wireList = z.array(z.string());
const integer = z.number().int();
const optionalId = z.string().min(1).nullable();

/** Typed wrappers around the session scripts; one instance per Redis connection. */
export class RedisSessionOps {
  readonly #redis: Redis;
  readonly #keys: QueueKeys;
  readonly #logger: Logger;

  constructor(redis: Redis, keys: QueueKeys, logger: Logger) {
    this.#redis = redis;
    this.#keys = keys;
    this.#logger = logger;
  }

  async submit(
    session: SessionKeys,
    item: InboxItem,
    settings: { mode: BusyInputMode; dedupeMs: number; interruptTtlMs: number },
    claim?: SubmitClaim,
  ): Promise<SubmitReply> {
    const args = [
      settings.dedupeMs,
      encodeInboxItem(item),
      settings.mode,
      session.hash,
      session.sessionKey,
      settings.interruptTtlMs,
    ];
    const seen = this.#keys.seen(session, item.eventId);
    if (claim !== undefined) {
      const raw = await this.#run(
        SUBMIT_CLAIM,
        [...lifecycleKeys(this.#keys, session), seen],
        [...args, claim.token, claim.lockMs, timeOrderedId()],
      );
      const claimed = claimedSubmitReply.safeParse(raw);
      if (claimed.success) {
        const [status, , , turnId, attempt, failures, wire] = claimed.data;
        const items = this.#decodeAll(wire);
        return { status, scheduleJob: false, claimed: { kind: 'turn', turnId, attempt, failures, items } };
      }
      return this.#submitReply(raw);
    }
    return this.#submitReply(
      await this.#run(
        SUBMIT,
        [
          seen,
          session.inbox,
          session.lock,
          session.turn,
          session.interrupt,
          this.#keys.sessions,
          this.#keys.depth,
        ],
        args,
      ),
    );
  }

  #submitReply(raw: unknown): SubmitReply {
    const [status, schedule, interruptTurnId] = submitReply.parse(raw);
    return { status, scheduleJob: schedule === 1, ...(interruptTurnId ? { interruptTurnId } : {}) };
  }

  /** Flags the session's turn in progress to stop; returns its id, or undefined when there is none. */
  async interrupt(session: SessionKeys, ttlMs: number): Promise<string | undefined> {
    const reply = optionalId.parse(await this.#run(INTERRUPT, [session.turn, session.interrupt], [ttlMs]));
    return reply ?? undefined;
  }

  async claim(session: SessionKeys, token: string, lockMs: number): Promise<ClaimReply> {
    return this.#claimReply(
      await this.#run(CLAIM, lifecycleKeys(this.#keys, session), [
        token,
        lockMs,
        timeOrderedId(),
        session.hash,
      ]),
    );
  }

  async finish(session: SessionKeys, token: string, lockMs: number, next: boolean): Promise<ClaimReply> {
    return this.#claimReply(
      await this.#run(FINISH, lifecycleKeys(this.#keys, session), [
        token,
        lockMs,
        timeOrderedId(),
        session.hash,
        next ? 1 : 0,
      ]),
    );
  }

  /**
   * Gives the session lock up and keeps its turn for another worker. `unrun`: the turn was
   * claimed under this token but its handler never started, so its start is not counted.
   */
  async release(session: SessionKeys, token: string, options: { unrun?: boolean } = {}): Promise<boolean> {
    const unrun = options.unrun === true ? 1 : 0;
    return integer.parse(await this.#run(RELEASE, [session.lock, session.turn], [token, unrun])) === 1;
  }

  async attemptFailed(session: SessionKeys, token: string): Promise<number | undefined> {
    const failures = integer.parse(await this.#run(ATTEMPT_FAILED, [session.lock, session.turn], [token]));
    return failures < 0 ? undefined : failures;
  }

  async beginAttempt(session: SessionKeys, token: string, lockMs: number): Promise<number | undefined> {
    const attempt = integer.parse(
      await this.#run(BEGIN_ATTEMPT, [session.lock, session.turn], [token, lockMs]),
    );
    return attempt < 0 ? undefined : attempt;
  }

  /** Extends the lock; says whether it is still ours and whether the turn was asked to stop. */
  async renew(
    session: SessionKeys,
    token: string,
    lockMs: number,
    turnId: string,
  ): Promise<'owned' | 'lost' | 'interrupt'> {
    const reply = integer.parse(
      await this.#run(RENEW, [session.lock, session.interrupt], [token, lockMs, turnId]),
    );
    return reply < 0 ? 'lost' : reply === 1 ? 'interrupt' : 'owned';
  }

  async takeSteering(session: SessionKeys, token: string): Promise<InboxItem[]> {
    const wire = wireList.parse(
      await this.#run(
        TAKE_STEERING,
        [session.lock, session.inbox, session.turnItems, this.#keys.depth],
        [token],
      ),
    );
    return this.#decodeAll(wire);
  }

  /** True when the session has work and nobody holds its lock (a job should be added). */
  async needsJob(session: SessionKeys): Promise<boolean> {
    const reply = await this.#run(
      SWEEP_ONE,
      [session.lock, session.turn, session.inbox, this.#keys.sessions],
      [session.hash],
    );
    return integer.parse(reply) === 1;
  }

  #run(script: RedisScript, keys: readonly string[], args: readonly (string | number)[]) {
    return runScript(this.#redis, script, keys, args);
  }

  #claimReply(raw: unknown): ClaimReply {
    const turn = turnReply.safeParse(raw);
    if (turn.success) {
      const [, turnId, attempt, failures, wire] = turn.data;
      return { kind: 'turn', turnId, attempt, failures, items: this.#decodeAll(wire) };
    }
    return { kind: simpleReply.parse(raw)[0] };
  }

  /** Skips (and logs) an item that does not decode rather than wedging the session on it. */
  #decodeAll(wire: readonly string[]): InboxItem[] {
    const items: InboxItem[] = [];
    for (const entry of wire) {
      try {
        items.push(decodeInboxItem(entry));
      } catch (error) {
        this.#logger.error({ err: error }, 'dropping an inbox item that does not decode');
      }
    }
    return items;
  }
}
