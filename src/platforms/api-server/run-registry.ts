import type { PromptRef } from '../ingress.js';

export const RUN_STATUSES = [
  'queued',
  'running',
  'waiting_for_approval',
  'waiting_for_input',
  'done',
  'failed',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A prompt the run waits on, as clients see it (`GET /v1/runs/:id` → `pending`). */
export type PendingPrompt =
  | {
      readonly type: 'approval';
      readonly id: string;
      readonly command: string;
      readonly why: string;
      readonly choices: readonly string[];
      readonly expires_at: string;
    }
  | {
      readonly type: 'clarify';
      readonly id: string;
      readonly question: string;
      readonly choices: readonly string[];
    };

/** One entry of a run's event log; `id` counts from 1 and is the SSE event id. */
export interface RunEvent {
  readonly id: number;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export interface Run {
  readonly id: string;
  readonly eventId: string;
  readonly sessionKey: string;
  /** The API session's chat id (the prompt records name it). */
  readonly chatId: string;
  readonly sessionId: string | undefined;
  readonly attended: boolean;
  readonly createdAt: number;
  status: RunStatus;
  pending:
    | { readonly shown: PendingPrompt; readonly ref: PromptRef; readonly expiresAt?: number }
    | undefined;
  /** An answer being recorded over HTTP: labels the resolution if the turn resumes first. */
  answering: { readonly parkId: string; readonly outcome: string } | undefined;
  output: string | undefined;
  error: { readonly code: string; readonly message: string } | undefined;
  usage: { readonly promptTokens: number; readonly completionTokens: number } | undefined;
  finishedAt: number | undefined;
  readonly events: RunEvent[];
  readonly listeners: Set<(event: RunEvent) => void>;
}

export interface RunRegistryOptions {
  readonly now: () => number;
  /** How long a finished run stays readable, ms. */
  readonly keepMs: number;
  /** Runs kept at most; the oldest finished go first. */
  readonly maxRuns: number;
}

/**
 * The runs this process accepted: their state and their event log (replayed to late subscribers
 * and to a reconnect with `Last-Event-ID`). In memory, bounded by count and age; a run lives in
 * the process that accepted it, whichever worker runs its turn.
 */
export function createRunRegistry(options: RunRegistryOptions) {
  const runs = new Map<string, Run>();
  const byKey = new Map<string, string>();

  function prune(): void {
    const now = options.now();
    for (const [id, run] of runs) {
      const old = run.finishedAt !== undefined && now - run.finishedAt > options.keepMs;
      if (old || (runs.size > options.maxRuns && run.finishedAt !== undefined)) forget(id, run);
    }
  }

  function forget(id: string, run: Run): void {
    runs.delete(id);
    for (const [key, runId] of byKey) if (runId === id) byKey.delete(key);
    run.listeners.clear();
  }

  return {
    create(
      init: Pick<Run, 'id' | 'eventId' | 'sessionKey' | 'chatId' | 'sessionId' | 'attended'>,
      key?: string,
    ): Run {
      prune();
      const run: Run = {
        ...init,
        createdAt: options.now(),
        status: 'queued',
        pending: undefined,
        answering: undefined,
        output: undefined,
        error: undefined,
        usage: undefined,
        finishedAt: undefined,
        events: [],
        listeners: new Set(),
      };
      runs.set(run.id, run);
      if (key !== undefined) byKey.set(key, run.id);
      return run;
    },
    get: (id: string): Run | undefined => runs.get(id),
    byIdempotencyKey(key: string): Run | undefined {
      const id = byKey.get(key);
      return id === undefined ? undefined : runs.get(id);
    },
    /** Drops a run that could not be queued (its id may be used again by a retry). */
    remove(id: string): void {
      const run = runs.get(id);
      if (run !== undefined) forget(id, run);
    },
    /** Appends an event to the log and hands it to every subscriber. */
    emit(run: Run, type: string, data: Record<string, unknown> = {}): void {
      const event: RunEvent = { id: run.events.length + 1, type, data };
      run.events.push(event);
      for (const listener of [...run.listeners]) listener(event);
    },
    /** Every run, newest first (the dashboard's list). */
    list(): Run[] {
      return [...runs.values()].reverse();
    },
  };
}

export type RunRegistry = ReturnType<typeof createRunRegistry>;

/** True once the run ended (its stream closes). */
export function isFinished(run: Pick<Run, 'status'>): boolean {
  return run.status === 'done' || run.status === 'failed';
}

/** The run as `GET /v1/runs/:id` answers it. */
export function publicRun(run: Run): Record<string, unknown> {
  return {
    id: run.id,
    object: 'run',
    status: run.status,
    attended: run.attended,
    created_at: Math.floor(run.createdAt / 1000),
    ...(run.sessionId !== undefined ? { session_id: run.sessionId } : {}),
    ...(run.pending !== undefined ? { pending: run.pending.shown } : {}),
    ...(run.output !== undefined ? { output: run.output } : {}),
    ...(run.error !== undefined ? { error: run.error } : {}),
    ...(run.usage !== undefined
      ? {
          usage: {
            input_tokens: run.usage.promptTokens,
            output_tokens: run.usage.completionTokens,
            total_tokens: run.usage.promptTokens + run.usage.completionTokens,
          },
        }
      : {}),
  };
}
