import { randomBytes } from 'node:crypto';
import type { ExecBackend } from '../../approval/approval-types.js';
import { HermesError } from '../../errors/hermes-error.js';
import { BackgroundProcess } from './background-process.js';
import { type SpawnPlan, type StartGroupOptions, startGroup } from './spawn-group.js';

export interface ProcessTableOptions {
  /** Live background processes one session may have (default 16). */
  readonly maxPerSession?: number;
  /** Live background processes in the whole gateway (default 64). */
  readonly maxTotal?: number;
  /** Characters of output kept per process, the most recent ones (default 1,000,000). */
  readonly bufferChars?: number;
  /** Finished processes kept per session for poll/log (default 16); older ones are forgotten. */
  readonly keepFinishedPerSession?: number;
  /** Milliseconds a finished process stays visible (default 30 minutes). */
  readonly finishedTtlMs?: number;
  /** Milliseconds between SIGTERM and SIGKILL (default 2000). */
  readonly killGraceMs?: number;
  readonly now?: () => number;
  /** Records each process group so it dies with this process (createCommandGroupLedger). */
  readonly ledger?: StartGroupOptions['ledger'];
}

export interface StartBackgroundInput {
  readonly sessionKey: string;
  readonly plan: SpawnPlan;
  /** The command as the model wrote it (shown by `list`). */
  readonly command: string;
  readonly cwd: string | undefined;
  readonly backend: ExecBackend;
  /** Kill the process after this many milliseconds. */
  readonly lifetimeMs?: number;
}

export interface ProcessTable {
  /** Starts a background process owned by `sessionKey`; throws when a limit is reached. */
  start(input: StartBackgroundInput): Promise<BackgroundProcess>;
  /** The process, only if it belongs to `sessionKey`. */
  get(sessionKey: string, id: string): BackgroundProcess | undefined;
  /** The session's processes, oldest first. */
  list(sessionKey: string): BackgroundProcess[];
  /** Live processes across all sessions. */
  readonly runningCount: number;
  /** Kills every process; idempotent. Later `start` calls throw. */
  close(): Promise<void>;
}

/** Creates the owner of all background processes (main.ts makes one and closes it at shutdown). */
export function createProcessTable(options: ProcessTableOptions = {}): ProcessTable {
  const maxPerSession = options.maxPerSession ?? 16;
  const maxTotal = options.maxTotal ?? 64;
  const bufferChars = options.bufferChars ?? 1_000_000;
  const keepFinished = options.keepFinishedPerSession ?? 16;
  const finishedTtlMs = options.finishedTtlMs ?? 30 * 60_000;
  const killGraceMs = options.killGraceMs ?? 2000;
  const now = options.now ?? Date.now;
  const processes = new Map<string, BackgroundProcess>();
  const starting = new Set<Promise<unknown>>();
  let closing: Promise<void> | undefined;

  const running = (): BackgroundProcess[] => [...processes.values()].filter((p) => p.running);

  function prune(): void {
    const bySession = new Map<string, BackgroundProcess[]>();
    const cutoff = now() - finishedTtlMs;
    for (const proc of processes.values()) {
      if (proc.running) continue;
      const endedAt = proc.info().endedAt ?? now();
      if (endedAt < cutoff) {
        processes.delete(proc.id);
        continue;
      }
      const list = bySession.get(proc.sessionKey) ?? [];
      list.push(proc);
      bySession.set(proc.sessionKey, list);
    }
    for (const list of bySession.values()) {
      list.sort((a, b) => (a.info().endedAt ?? 0) - (b.info().endedAt ?? 0));
      for (const old of list.slice(0, Math.max(0, list.length - keepFinished))) processes.delete(old.id);
    }
  }

  return {
    async start(input) {
      if (closing !== undefined) {
        throw new HermesError(
          'process_limit',
          'background processes are shutting down; no new ones can start',
        );
      }
      prune();
      const live = running();
      const mine = live.filter((p) => p.sessionKey === input.sessionKey).length;
      if (mine >= maxPerSession) {
        throw new HermesError(
          'process_limit',
          `this session already has ${mine} background processes running (limit ${maxPerSession}); stop one with process(action='kill') first`,
        );
      }
      if (live.length >= maxTotal) {
        throw new HermesError(
          'process_limit',
          `the gateway already runs ${live.length} background processes (limit ${maxTotal}); try again later or stop one`,
        );
      }
      let id = `proc_${randomBytes(6).toString('hex')}`;
      while (processes.has(id)) id = `proc_${randomBytes(6).toString('hex')}`;
      const proc = new BackgroundProcess({
        id,
        sessionKey: input.sessionKey,
        command: input.command,
        cwd: input.cwd,
        backend: input.backend,
        bufferChars,
        now,
      });
      const spawning = startGroup(input.plan, {
        onOutput: (text) => proc.output.append(text),
        killGraceMs,
        ...(options.ledger !== undefined ? { ledger: options.ledger } : {}),
      });
      starting.add(spawning);
      try {
        proc.attach(await spawning, input.lifetimeMs);
      } finally {
        starting.delete(spawning);
      }
      processes.set(id, proc);
      if (closing !== undefined) {
        await proc.kill();
        throw new HermesError(
          'process_limit',
          'background processes are shutting down; the process was stopped',
        );
      }
      return proc;
    },
    get(sessionKey, id) {
      const proc = processes.get(id);
      return proc !== undefined && proc.sessionKey === sessionKey ? proc : undefined;
    },
    list(sessionKey) {
      prune();
      return [...processes.values()].filter((p) => p.sessionKey === sessionKey);
    },
    get runningCount() {
      return running().length;
    },
    close() {
      closing ??= (async () => {
        await Promise.allSettled([...starting]);
        await Promise.all(running().map((p) => p.kill()));
      })();
      return closing;
    },
  };
}
