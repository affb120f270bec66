import type { ExecBackend } from '../../approval/approval-types.js';
import { OutputRing, type RingSlice } from './output-ring.js';
import type { GroupExit, SpawnedGroup } from './spawn-group.js';

export type ProcessStatus = 'running' | 'exited' | 'killed' | 'timed_out';

export interface ProcessInfo {
  readonly id: string;
  readonly sessionKey: string;
  readonly pid: number;
  readonly command: string;
  readonly cwd: string | undefined;
  readonly backend: ExecBackend;
  readonly status: ProcessStatus;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  readonly endedAt: number | undefined;
}

export interface BackgroundProcessInit {
  readonly id: string;
  readonly sessionKey: string;
  readonly command: string;
  readonly cwd: string | undefined;
  readonly backend: ExecBackend;
  readonly bufferChars: number;
  readonly now: () => number;
}

/**
 * One command started with `background: true`: its process group, a bounded buffer of its
 * output, and where the last poll stopped reading.
 */
export class BackgroundProcess {
  readonly id: string;
  readonly sessionKey: string;
  readonly command: string;
  readonly cwd: string | undefined;
  readonly backend: ExecBackend;
  readonly output: OutputRing;
  readonly startedAt: number;
  readonly #now: () => number;
  #group: SpawnedGroup | undefined;
  #status: ProcessStatus = 'running';
  #exit: GroupExit | undefined;
  #endedAt: number | undefined;
  #pollCursor = 0;
  #settled: Promise<void> = Promise.resolve();
  #lifetimeTimer: NodeJS.Timeout | undefined;

  constructor(init: BackgroundProcessInit) {
    this.id = init.id;
    this.sessionKey = init.sessionKey;
    this.command = init.command;
    this.cwd = init.cwd;
    this.backend = init.backend;
    this.output = new OutputRing(init.bufferChars);
    this.#now = init.now;
    this.startedAt = init.now();
  }

  /** Binds the started group; `lifetimeMs` kills it when it runs longer. */
  attach(group: SpawnedGroup, lifetimeMs: number | undefined): void {
    this.#group = group;
    this.#settled = group.exited.then((exit) => {
      clearTimeout(this.#lifetimeTimer);
      this.#exit = exit;
      this.#endedAt = this.#now();
      if (this.#status === 'running') this.#status = 'exited';
    });
    if (lifetimeMs !== undefined) {
      this.#lifetimeTimer = setTimeout(() => {
        if (this.#status === 'running') this.#status = 'timed_out';
        void group.terminate();
      }, lifetimeMs);
      this.#lifetimeTimer.unref();
    }
  }

  get running(): boolean {
    return this.#endedAt === undefined;
  }

  /** Settles when the process has ended and its output is drained. */
  get settled(): Promise<void> {
    return this.#settled;
  }

  info(): ProcessInfo {
    return {
      id: this.id,
      sessionKey: this.sessionKey,
      pid: this.#group?.pid ?? 0,
      command: this.command,
      cwd: this.cwd,
      backend: this.backend,
      status: this.#status,
      exitCode: this.#exit?.exitCode ?? null,
      signal: this.#exit?.signal ?? null,
      startedAt: this.startedAt,
      endedAt: this.#endedAt,
    };
  }

  /** Output written since the previous call (or since the start); moves the cursor. */
  readNew(): RingSlice {
    const slice = this.output.readFrom(this.#pollCursor);
    this.#pollCursor = this.output.end;
    return slice;
  }

  /** Resolves true when the process has ended within `timeoutMs`, false otherwise or on abort. */
  async waitFor(timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    if (!this.running) return true;
    if (signal.aborted) return false;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
      onAbort = () => resolve(false);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([this.#settled.then(() => true as const), stop]);
    } finally {
      clearTimeout(timer);
      if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
    }
  }

  /** Terminates the whole group (SIGTERM, then SIGKILL) and resolves once it is gone. */
  async kill(): Promise<void> {
    if (this.running && this.#status === 'running') this.#status = 'killed';
    await this.#group?.terminate();
    await this.#settled;
  }
}
