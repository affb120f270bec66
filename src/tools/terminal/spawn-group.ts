import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { HermesError } from '../../errors/hermes-error.js';
import type { CommandGroupLedger } from './command-group-ledger.js';

/** What to start: a program and its arguments (never a shell string built from pieces). */
export interface SpawnPlan {
  readonly file: string;
  readonly args: readonly string[];
  /** Host directory the program starts in; the gateway's own when absent. */
  readonly cwd?: string;
  readonly env: Readonly<Record<string, string>>;
  /** Written to stdin, which is then closed; without it stdin is /dev/null. */
  readonly input?: string;
  /**
   * For a leader that runs the command in a PID namespace of its own (bwrap): finds that
   * namespace's init (SIGKILL to it ends everything inside) and, once the init leads a process
   * group of its own, that group (the command's: it gets the polite SIGTERM). Undefined while
   * the sandbox is still being set up.
   */
  readonly inner?: (leaderPid: number) => InnerProcesses | undefined;
}

export interface InnerProcesses {
  readonly init: number;
  readonly commandGroup: number | undefined;
}

export interface GroupExit {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface SpawnedGroup {
  readonly pid: number;
  /** True until the leader has exited. */
  readonly running: boolean;
  /** Settles once the leader has exited, leftovers of its group are killed and output is drained. */
  readonly exited: Promise<GroupExit>;
  /** SIGTERM to the whole group, SIGKILL after the grace period; resolves when it has exited. */
  terminate(): Promise<GroupExit>;
}

export interface StartGroupOptions {
  readonly onOutput: (text: string) => void;
  /** Milliseconds between SIGTERM and SIGKILL (default 2000). */
  readonly killGraceMs?: number;
  /** Milliseconds to wait for the pipes to close after the leader exited (default 1000). */
  readonly drainMs?: number;
  /** Records the group so it is killed if this process dies first (see createCommandGroupLedger). */
  readonly ledger?: Pick<CommandGroupLedger, 'claim'>;
}

/**
 * Starts a program as the leader of its own process group, with stdout and stderr interleaved
 * into `onOutput` as they arrive. When the leader exits, whatever it left running in its group
 * is killed: a command's processes live as long as the command. Signals go to the whole group,
 * so a shell's children die with it.
 */
export async function startGroup(plan: SpawnPlan, options: StartGroupOptions): Promise<SpawnedGroup> {
  const killGraceMs = options.killGraceMs ?? 2000;
  const drainMs = options.drainMs ?? 1000;
  // Claimed before the spawn: if this process dies right after it, the command is still found.
  const claim = options.ledger?.claim();
  const forget = (): void => claim?.release();
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(plan.file, [...plan.args], {
      cwd: plan.cwd,
      env: { ...plan.env, ...claim?.env },
      detached: true,
      stdio: [plan.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    // Rejects with the spawn error ('error' before 'spawn').
    await once(child, 'spawn');
  } catch (error) {
    forget();
    throw new HermesError('exec_failed', `cannot start '${plan.file}': ${(error as Error).message}`, {
      cause: error,
    });
  }
  child.on('error', () => {
    // After a successful spawn the only errors are failed signals; the exit path handles them.
  });
  const pid = child.pid as number;
  if (plan.input !== undefined && child.stdin !== null) {
    child.stdin.on('error', () => {
      // EPIPE when the command exits without reading its input: nothing to do.
    });
    child.stdin.end(plan.input);
  }

  let leaderExit: GroupExit | undefined;
  /** False once the group was swept after the leader's exit: its id may be reused later. */
  let signalable = true;
  const signalGroup = (signal: NodeJS.Signals): void => {
    if (!signalable) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  };

  /** SIGKILL to the group and, for a sandbox, to its init: nothing inside survives either. */
  const killAll = (): void => {
    const inner = signalable ? plan.inner?.(pid) : undefined;
    if (inner !== undefined) {
      try {
        process.kill(inner.init, 'SIGKILL');
      } catch {
        // ESRCH: already gone.
      }
    }
    signalGroup('SIGKILL');
  };

  /** SIGTERM where the command can handle it; a sandbox still being set up is stopped at once. */
  const askToStop = (): void => {
    if (plan.inner === undefined) {
      signalGroup('SIGTERM');
      return;
    }
    const group = plan.inner(pid)?.commandGroup;
    if (group === undefined) {
      killAll();
      return;
    }
    try {
      process.kill(-group, 'SIGTERM');
    } catch {
      killAll();
    }
  };

  const streams = [child.stdout, child.stderr].filter((s) => s !== null);
  for (const stream of streams) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => options.onOutput(chunk));
  }

  const exited = new Promise<GroupExit>((resolve) => {
    let open = streams.length;
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      if (leaderExit === undefined || open > 0) return;
      clearTimeout(drainTimer);
      resolve(leaderExit);
    };
    for (const stream of streams) {
      stream.once('close', () => {
        open -= 1;
        finish();
      });
    }
    child.once('exit', (exitCode, signal) => {
      leaderExit = { exitCode, signal };
      signalGroup('SIGKILL');
      signalable = false;
      forget();
      // A process that left the group (setsid) may still hold the pipes open: stop waiting.
      drainTimer = setTimeout(() => {
        for (const stream of streams) stream.destroy();
        if (leaderExit !== undefined) resolve(leaderExit);
      }, drainMs);
      finish();
    });
  });

  let terminating: Promise<GroupExit> | undefined;
  return {
    pid,
    get running() {
      return leaderExit === undefined;
    },
    exited,
    terminate() {
      if (terminating !== undefined) return terminating;
      if (leaderExit !== undefined) return exited;
      askToStop();
      const escalate = setTimeout(killAll, killGraceMs);
      terminating = exited.finally(() => clearTimeout(escalate));
      return terminating;
    },
  };
}
