import { randomUUID } from 'node:crypto';
import { type Job, Queue, Worker } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import { waitAtMost } from '../../lib/abortable-sleep.js';
import { parseInboxItem } from './inbox-item.js';
import { type ClaimedTurn, RedisSessionOps } from './redis-session-ops.js';
import { type LocalRunSlot, SessionJobRunner } from './session-job-runner.js';
import { type QueueKeys, queueKeys, type SessionKeys } from './session-keys.js';
import { abortTurn } from './turn-abort.js';
import {
  type BusyInputMode,
  type InboxItem,
  QUEUE_DEFAULTS,
  type QueueSettings,
  resolveQueueSettings,
  type StartWorkersOptions,
  type SubmitResult,
  type TurnHandler,
  type TurnQueue,
  type TurnQueueOptions,
} from './turn-queue.js';

export interface BullmqTurnQueueOptions extends TurnQueueOptions {
  /** `redis://…` URL or ioredis options. The queue opens, and closes, connections of its own. */
  readonly connection: string | RedisOptions;
  /** First part of every Redis key (BullMQ's and the queue's own). Default `hermes`. */
  readonly prefix?: string;
  /** BullMQ queue name. Default `turns`. */
  readonly queueName?: string;
  /** Session lock and BullMQ job lock, in ms. Must be the same on every worker. Default 30 000. */
  readonly lockDurationMs?: number;
  /** BullMQ stalled-job check interval, in ms. Must be the same on every worker. Default 30 000. */
  readonly stalledIntervalMs?: number;
  /**
   * Ms between sweeps for sessions with work but no lock holder and no job: how a turn run
   * locally (see `localFirst`) is recovered after its process died. Default: the stalled interval.
   */
  readonly sweepIntervalMs?: number;
  /**
   * A message for an idle session runs in this process when it has started workers and has a free
   * slot, without a BullMQ job round trip; BullMQ takes the rest (no free slot, producer-only
   * processes, retries, recovery). False: every turn goes through a BullMQ job. Default true.
   */
  readonly localFirst?: boolean;
}

export const BULLMQ_DEFAULTS = {
  prefix: 'hermes',
  queueName: 'turns',
  lockDurationMs: 30_000,
  stalledIntervalMs: 30_000,
  localFirst: true,
} as const;

const HEALTH_PING_TIMEOUT_MS = 2_000;

interface SessionJobData {
  readonly sessionKey: string;
}

const jobDataSchema = z.object({ sessionKey: z.string().min(1) });

/** A local-first slot held while a submit is in flight: run the turn it claimed, or give it back. */
interface LocalSlot {
  readonly token: string;
  run(session: SessionKeys, turn: ClaimedTurn): void;
  cancel(): void;
}

interface WorkerSide {
  readonly redis: Redis;
  readonly subscriber: Redis;
  readonly runner: SessionJobRunner;
  readonly worker: Worker<SessionJobData, void, 'session'>;
  readonly sweepTimer: NodeJS.Timeout;
}

/**
 * The scale-out queue. Per session it keeps an inbox list, the turn in progress and a lock in
 * Redis (see session-scripts.ts); BullMQ only carries "this session has work" jobs and brings a
 * job back when its worker dies (stalled check). The lock holder runs turn after turn until the
 * inbox is empty, so a session never has two turns at once, whichever worker holds it.
 */
export type BullmqTurnQueue = TurnQueue & {
  /** Adds a job for every session with work and no lock holder. Returns how many. Runs periodically. */
  sweep(): Promise<number>;
};

export function createBullmqTurnQueue(options: BullmqTurnQueueOptions): BullmqTurnQueue {
  return new BullmqTurnQueueImpl(options);
}

class BullmqTurnQueueImpl implements BullmqTurnQueue {
  readonly kind = 'bullmq' as const;
  readonly #options: BullmqTurnQueueOptions;
  readonly #logger: Logger;
  readonly #mode: BusyInputMode;
  readonly #lockMs: number;
  readonly #settings: QueueSettings &
    Required<Omit<BullmqTurnQueueOptions, keyof TurnQueueOptions | 'connection'>>;
  readonly #keys: QueueKeys;
  readonly #client: Redis;
  readonly #ops: RedisSessionOps;
  readonly #queue: Queue<SessionJobData, void, 'session'>;
  readonly #active = new Map<string, AbortController>();
  /** Sessions being run locally (local-first), each until its inbox is empty. */
  readonly #local = new Set<Promise<void>>();
  /** Local runs between two turns (their FINISH in flight): their slots are free meanwhile. */
  #localBetweenTurns = 0;
  /** Local slots reserved by submits still waiting for Redis's answer (count, and settled when answered). */
  #reserved = 0;
  readonly #reservations = new Set<Promise<void>>();
  /** BullMQ jobs being processed by this process' worker. */
  #jobsRunning = 0;
  #concurrency = 0;
  readonly #stop = new AbortController();
  #workerSide: WorkerSide | undefined;
  #started = false;
  #closing: Promise<void> | undefined;

  constructor(options: BullmqTurnQueueOptions) {
    this.#options = options;
    this.#mode = options.busyInputMode ?? QUEUE_DEFAULTS.busyInputMode;
    this.#settings = {
      ...resolveQueueSettings(options),
      prefix: options.prefix ?? BULLMQ_DEFAULTS.prefix,
      queueName: options.queueName ?? BULLMQ_DEFAULTS.queueName,
      lockDurationMs: options.lockDurationMs ?? BULLMQ_DEFAULTS.lockDurationMs,
      stalledIntervalMs: options.stalledIntervalMs ?? BULLMQ_DEFAULTS.stalledIntervalMs,
      sweepIntervalMs:
        options.sweepIntervalMs ?? options.stalledIntervalMs ?? BULLMQ_DEFAULTS.stalledIntervalMs,
      localFirst: options.localFirst ?? BULLMQ_DEFAULTS.localFirst,
    };
    const { prefix, queueName } = this.#settings;
    this.#lockMs = this.#settings.lockDurationMs;
    this.#logger = options.logger.child({ component: 'turn-queue', queue: 'bullmq', queueName });
    this.#keys = queueKeys(`${prefix}:gw:${queueName}`);
    this.#client = this.#connect('producer', { maxRetriesPerRequest: 3 });
    this.#ops = new RedisSessionOps(this.#client, this.#keys, this.#logger);
    this.#queue = new Queue<SessionJobData, void, 'session'>(queueName, { connection: this.#client, prefix });
    this.#queue.on('error', (error) => this.#logger.warn({ err: error }, 'BullMQ queue error'));
  }

  async submit(raw: InboxItem): Promise<SubmitResult> {
    if (this.#closing) throw new HermesError('queue_closed', 'the turn queue is closed');
    const item = parseInboxItem(raw);
    const session = this.#keys.session(item.sessionKey);
    // Local-first: with a free slot, the submit also claims an idle session for this process.
    const slot = this.#reserveLocalSlot();
    let reply: Awaited<ReturnType<RedisSessionOps['submit']>>;
    try {
      reply = await this.#ops.submit(
        session,
        item,
        {
          mode: this.#mode,
          dedupeMs: item.dedupe === false ? 0 : this.#settings.dedupeWindowMs,
          interruptTtlMs: this.#lockMs * 3,
        },
        slot === undefined ? undefined : { token: slot.token, lockMs: this.#lockMs },
      );
    } catch (error) {
      slot?.cancel();
      throw new HermesError('queue_failed', `could not queue the message (Redis): ${errorText(error)}`, {
        cause: error,
      });
    }
    if (slot !== undefined && reply.claimed !== undefined) slot.run(session, reply.claimed);
    else {
      slot?.cancel();
      // The item is stored either way; if adding the job fails, the periodic sweep schedules it.
      if (reply.scheduleJob) await this.#addJob(item.sessionKey).catch(() => undefined);
    }
    if (reply.interruptTurnId !== undefined) await this.#announceInterrupt(reply.interruptTurnId);
    return { status: reply.status };
  }

  async interrupt(sessionKey: string): Promise<boolean> {
    if (this.#closing) throw new HermesError('queue_closed', 'the turn queue is closed');
    let turnId: string | undefined;
    try {
      turnId = await this.#ops.interrupt(this.#keys.session(sessionKey), this.#lockMs * 3);
    } catch (error) {
      throw new HermesError('queue_failed', `could not interrupt the turn (Redis): ${errorText(error)}`, {
        cause: error,
      });
    }
    if (turnId === undefined) return false;
    await this.#announceInterrupt(turnId);
    return true;
  }

  /** Tells every worker at once; the one running the turn aborts it (the renewal is the fallback). */
  async #announceInterrupt(turnId: string): Promise<void> {
    await this.#client.publish(this.#keys.interruptChannel, turnId).catch((error: unknown) => {
      this.#logger.warn({ err: error }, 'interrupt publish failed; the lock renewal will see it');
    });
  }

  async startWorkers(handler: TurnHandler, options: StartWorkersOptions): Promise<void> {
    if (this.#closing) throw new HermesError('queue_closed', 'the turn queue is closed');
    if (this.#started) throw new HermesError('queue_failed', 'startWorkers was already called');
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new HermesError(
        'queue_failed',
        `concurrency must be a positive integer, got ${options.concurrency}`,
      );
    }
    this.#started = true;
    this.#concurrency = options.concurrency;
    const { prefix, queueName, stalledIntervalMs, maxAttempts, sweepIntervalMs } = this.#settings;
    const redis = this.#connect('worker', { maxRetriesPerRequest: null });
    const subscriber = this.#connect('interrupts', { maxRetriesPerRequest: null });
    subscriber.on('message', (_channel: string, turnId: string) => {
      const controller = this.#active.get(turnId);
      if (controller) abortTurn(controller, 'interrupt');
    });
    const worker = new Worker<SessionJobData, void, 'session'>(queueName, (job) => this.#process(job), {
      connection: redis,
      prefix,
      concurrency: options.concurrency,
      lockDuration: this.#lockMs,
      stalledInterval: stalledIntervalMs,
      // Crashes are counted (and bounded) by the queue itself; BullMQ must not give up first.
      maxStalledCount: maxAttempts + 1,
    });
    worker.on('error', (error) => this.#logger.warn({ err: error }, 'BullMQ worker error'));
    worker.on('failed', (job, error) =>
      this.#logger.warn({ err: error, jobId: job?.id }, 'session job failed (Redis trouble?)'),
    );
    const sweepTimer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.#logger.warn({ err: error }, 'sweep failed'));
    }, sweepIntervalMs);
    sweepTimer.unref();
    this.#workerSide = {
      redis,
      subscriber,
      runner: new SessionJobRunner({
        ops: new RedisSessionOps(redis, this.#keys, this.#logger),
        handler,
        onFailed: options.onFailed,
        mode: this.#mode,
        lockMs: this.#lockMs,
        stalledIntervalMs,
        maxAttempts,
        backoffMs: this.#settings.backoffMs,
        maxBackoffMs: this.#settings.maxBackoffMs,
        active: this.#active,
        stop: this.#stop.signal,
        addJob: (sessionKey) => this.#addJob(sessionKey),
        logger: this.#logger,
      }),
      worker,
      sweepTimer,
    };
    await subscriber.subscribe(this.#keys.interruptChannel);
    await worker.waitUntilReady();
    await this.sweep();
  }

  async sweep(): Promise<number> {
    let scheduled = 0;
    let cursor = '0';
    do {
      const [next, flat] = await this.#client.hscan(this.#keys.sessions, cursor, 'COUNT', 200);
      cursor = next;
      for (let index = 1; index < flat.length; index += 2) {
        const session = this.#keys.session(flat[index]!);
        if (await this.#ops.needsJob(session)) {
          await this.#addJob(session.sessionKey);
          scheduled += 1;
        }
      }
    } while (cursor !== '0');
    if (scheduled > 0) this.#logger.info({ scheduled }, 'sweep scheduled sessions that had no job');
    return scheduled;
  }

  async depth(): Promise<number> {
    const value = Number(await this.#client.get(this.#keys.depth));
    return Number.isFinite(value) && value > 0 ? value : 0;
  }

  activeTurns(): number {
    return this.#active.size;
  }

  async runningSessions(sessionKeys: readonly string[]): Promise<ReadonlySet<string>> {
    const running = new Set<string>();
    if (sessionKeys.length === 0) return running;
    // One round trip: a session runs while a worker holds its lock with its turn marked running.
    const pipeline = this.#client.pipeline();
    for (const key of sessionKeys) {
      const session = this.#keys.session(key);
      pipeline.exists(session.lock);
      pipeline.hget(session.turn, 'running');
    }
    const replies = (await pipeline.exec()) ?? [];
    sessionKeys.forEach((key, index) => {
      const locked = replies[index * 2];
      const flag = replies[index * 2 + 1];
      if (locked?.[0] == null && locked?.[1] === 1 && flag?.[0] == null && flag?.[1] === '1')
        running.add(key);
    });
    return running;
  }

  async health(): Promise<{ ok: boolean; reason?: string }> {
    if (this.#closing) return { ok: false, reason: 'closed' };
    const status = this.#client.status;
    if (status === 'end' || status === 'close') return { ok: false, reason: `redis connection ${status}` };
    const ping = this.#client.ping();
    try {
      if (!(await waitAtMost(ping, HEALTH_PING_TIMEOUT_MS))) {
        return { ok: false, reason: `redis did not answer within ${HEALTH_PING_TIMEOUT_MS} ms` };
      }
      await ping;
      return { ok: true };
    } catch (error) {
      return { ok: false, reason: `redis ping failed: ${errorText(error)}` };
    }
  }

  close(options: { graceMs?: number } = {}): Promise<void> {
    this.#closing ??= this.#shutdown(options.graceMs ?? this.#settings.shutdownGraceMs);
    return this.#closing;
  }

  async #shutdown(graceMs: number): Promise<void> {
    this.#stop.abort();
    const side = this.#workerSide;
    if (side) {
      clearInterval(side.sweepTimer);
      const drained = Promise.all([side.worker.close(), this.#localDrained()]);
      if (!(await waitAtMost(drained, graceMs))) {
        for (const controller of this.#active.values()) abortTurn(controller, 'shutdown');
        if (!(await waitAtMost(drained, this.#settings.abortWaitMs))) {
          this.#logger.warn('closing with turn handlers that ignored the shutdown abort');
        }
      }
      await quit(side.subscriber);
    }
    await this.#queue.close().catch((error: unknown) => this.#logger.warn({ err: error }, 'queue close'));
    if (side) await quit(side.redis);
    await quit(this.#client);
  }

  #connect(role: string, overrides: Pick<RedisOptions, 'maxRetriesPerRequest'>): Redis {
    const { connection } = this.#options;
    const redis =
      typeof connection === 'string'
        ? new Redis(connection, { ...overrides, connectionName: `hermes-${role}` })
        : new Redis({ ...connection, ...overrides, connectionName: `hermes-${role}` });
    redis.on('error', (error: unknown) => this.#logger.warn({ err: error, role }, 'redis connection error'));
    return redis;
  }

  async #addJob(sessionKey: string): Promise<void> {
    try {
      await this.#queue.add(
        'session',
        { sessionKey },
        {
          removeOnComplete: true,
          removeOnFail: { count: 1_000 },
          attempts: 5,
          backoff: { type: 'exponential', delay: 1_000 },
        },
      );
    } catch (error) {
      this.#logger.error({ err: error, sessionKey }, 'could not add a session job; the sweep will retry');
      throw error;
    }
  }

  async #process(job: Job<SessionJobData, void, 'session'>): Promise<void> {
    const data = jobDataSchema.safeParse(job.data);
    if (!this.#workerSide || !data.success) return;
    this.#jobsRunning += 1;
    try {
      await this.#workerSide.runner.run(this.#keys.session(data.data.sessionKey), job.attemptsStarted > 1);
    } finally {
      this.#jobsRunning -= 1;
    }
  }

  /**
   * Local-first: an idle session's new work runs in this process when a slot is free (never all
   * of them: the BullMQ worker keeps at least one, and its concurrency shrinks by the local runs,
   * so the process never runs more than `concurrency` turns). The slot is reserved before the
   * submit, which then claims the session in the same script (no second round trip); a submit
   * that claims nothing gives it back. The session lock and the turn record in Redis are the
   * same as a job's: if this process dies, the lock expires and the sweep of any worker
   * schedules a job that recovers the turn.
   */
  #reserveLocalSlot(): LocalSlot | undefined {
    const side = this.#workerSide;
    if (side === undefined || !this.#settings.localFirst || this.#stop.signal.aborted) return undefined;
    if (!this.#localSlotFree()) return undefined;
    this.#reserved += 1;
    this.#fitWorkerConcurrency(side.worker);
    const token = randomUUID();
    let open = true;
    let settled = () => {};
    const pending = new Promise<void>((resolve) => {
      settled = resolve;
    });
    this.#reservations.add(pending);
    const settle = () => {
      const wasOpen = open;
      if (open) {
        this.#reserved -= 1;
        this.#reservations.delete(pending);
        settled();
      }
      open = false;
      return wasOpen;
    };
    return {
      token,
      cancel: () => {
        if (settle()) this.#fitWorkerConcurrency(side.worker);
      },
      run: (session, turn) => {
        if (settle())
          this.#startLocal(side, session, (slot) => side.runner.runClaimed(session, token, turn, slot));
      },
    };
  }

  /**
   * Tracks a local run until it ends; a run that fails hands the session to a job. The run gives
   * its slot up while its FINISH is in flight (a new submit may take it: under load, the next
   * request often arrives before Redis answered) and takes it back for a next turn of the session
   * only when one is still free.
   */
  #startLocal(side: WorkerSide, session: SessionKeys, start: (slot: LocalRunSlot) => Promise<void>): void {
    const { sessionKey } = session;
    let between = false;
    const setBetween = (value: boolean) => {
      if (between === value) return;
      between = value;
      this.#localBetweenTurns += value ? 1 : -1;
      this.#fitWorkerConcurrency(side.worker);
    };
    const slot: LocalRunSlot = {
      release: () => setBetween(true),
      retake: () => {
        if (!between) return true;
        if (!this.#localSlotFree()) return false;
        setBetween(false);
        return true;
      },
    };
    const run: Promise<void> = start(slot)
      .catch(async (error: unknown) => {
        this.#logger.warn({ err: error, sessionKey }, 'local turn run failed; handing the session to a job');
        await this.#addJob(sessionKey).catch(() => undefined);
      })
      .finally(() => {
        this.#local.delete(run);
        setBetween(false);
        this.#fitWorkerConcurrency(side.worker);
      });
    this.#local.add(run);
    this.#fitWorkerConcurrency(side.worker);
  }

  /** Local runs in a turn plus reserved slots: the slots local-first work holds now. */
  #localSlotsTaken(): number {
    return this.#local.size - this.#localBetweenTurns + this.#reserved;
  }

  /** Local work may take another slot: it never takes the last one, nor one a BullMQ job holds. */
  #localSlotFree(): boolean {
    const taken = this.#localSlotsTaken();
    return taken < this.#concurrency - 1 && taken + this.#jobsRunning < this.#concurrency;
  }

  #fitWorkerConcurrency(worker: Worker<SessionJobData, void, 'session'>): void {
    worker.concurrency = Math.max(1, this.#concurrency - this.#localSlotsTaken());
  }

  /**
   * Resolves once no local run is left and no submit in flight can start one (none is reserved
   * after the queue began closing; one claimed meanwhile hands its turn back at once).
   */
  async #localDrained(): Promise<void> {
    while (this.#local.size > 0 || this.#reservations.size > 0) {
      await Promise.allSettled([...this.#local, ...this.#reservations]);
    }
  }
}

async function quit(redis: Redis): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
