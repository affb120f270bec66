import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';

/** The environment variable that marks every process a gateway process started for a command. */
export const OWNER_ENV = 'HERMES_COMMAND_OWNER';

/** Default time between sweeps for commands left by processes that died, ms. */
export const DEFAULT_SWEEP_INTERVAL_MS = 2_000;

/** A command about to start, claimed by this process: what marks it, and how it is let go. */
export interface CommandClaim {
  /** Added to the command's environment: marks its processes as this gateway process' own. */
  readonly env: Readonly<Record<string, string>>;
  /** The command's process group is gone (or it never started); idempotent. */
  release(): void;
}

export interface CommandGroupLedger {
  /**
   * Called before a command is spawned: records this process as an owner of commands (once) and
   * returns the mark for the command's environment. Because the record exists before the command
   * does, there is no moment in which this process could die and leave the command unaccounted.
   */
  claim(): CommandClaim;
  /**
   * Kills the commands of gateway processes that are gone (killed, crashed): every process group
   * holding a process that carries a dead owner's mark. Forgets those owners and returns the
   * process group ids that were killed.
   */
  sweep(): number[];
  /** Sweeps now and then every `intervalMs` (timer unref'd). */
  start(intervalMs?: number): void;
  /**
   * Stops the timer; idempotent. This process' record is removed once none of its commands is
   * left (now, or when the last one ends); a command still running keeps it, for the sweepers.
   */
  close(): void;
}

export interface CommandGroupLedgerOptions {
  /** Shared by every gateway process of one HERMES_HOME: `$HERMES_HOME/run/command-groups`. */
  readonly dir: string;
  readonly logger: Logger;
  /** Where process information is read (default /proc). */
  readonly procRoot?: string;
}

/** pid, process group and start time of one process, or undefined when it is gone or a zombie. */
function readStat(procRoot: string, pid: number): { pgid: number; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(join(procRoot, String(pid), 'stat'), 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp ..." — comm may contain spaces and parentheses: cut at the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  if (state === undefined || state === 'Z' || state === 'X') return undefined;
  const pgid = Number(fields[2]);
  const start = fields[19];
  if (!Number.isInteger(pgid) || start === undefined) return undefined;
  return { pgid, start };
}

/** The `NAME=value` entries of a process' environment; none when it is unreadable (another user's). */
function environOf(procRoot: string, pid: number): string[] {
  try {
    return readFileSync(join(procRoot, String(pid), 'environ'), 'latin1').split('\0');
  } catch {
    return [];
  }
}

/** The entries of a directory; none when it is missing or unreadable. */
function namesIn(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** `<id space>.<owner pid>.<owner start time>`, holding the owner's token. */
const RECORD = /^([0-9a-f]{12})\.(\d+)\.(\d+)$/;

/**
 * Names the process-id space this process lives in: the host name plus the PID namespace
 * (containers of one compose project share the HERMES_HOME volume but not their pids). Records of
 * another space are never judged here: their pids mean nothing in this one.
 */
function pidSpaceTag(procRoot: string): string {
  let namespace = '';
  try {
    namespace = readlinkSync(join(procRoot, 'self', 'ns', 'pid'));
  } catch {
    // No namespace link (an old kernel): the host name alone.
  }
  return createHash('sha256').update(`${hostname()}\n${namespace}`).digest('hex').slice(0, 12);
}

/**
 * Commands run in process groups of their own (`startGroup`). When the gateway process that
 * started one is killed (SIGKILL, OOM, a crash), nothing stops the group: it keeps running as an
 * orphan while another worker retries the turn and runs the command again. This ledger closes
 * that gap on Linux. Before its first command, a gateway process records itself under the shared
 * HERMES_HOME (`<space>.<pid>.<start time>`, holding a random token), and every command it starts
 * carries that token in its environment. Each gateway process regularly looks for owners that are
 * gone and kills the process group of every process still carrying a gone owner's token. The
 * token, not a process id, decides, so a recycled id is never hit; and since the owner is recorded
 * before its commands exist, dying right after a spawn leaves nothing behind. Records are tagged
 * with their process-id space (host and PID namespace) and only judged within it. Without /proc
 * (macOS) nothing is recorded.
 */
export function createCommandGroupLedger(options: CommandGroupLedgerOptions): CommandGroupLedger {
  const procRoot = options.procRoot ?? '/proc';
  const { dir, logger } = options;
  const token = randomUUID();
  const space = pidSpaceTag(procRoot);
  const selfStat = readStat(procRoot, process.pid);
  const recordPath =
    selfStat === undefined ? undefined : join(dir, `${space}.${process.pid}.${selfStat.start}`);
  const env: Readonly<Record<string, string>> = recordPath === undefined ? {} : { [OWNER_ENV]: token };
  let recorded = false;
  let live = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function record(): void {
    if (recordPath === undefined || recorded) return;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(recordPath, token, { mode: 0o600 });
      recorded = true;
    } catch (error) {
      logger.warn(
        { err: (error as Error).message },
        'command owner not recorded; a crash would leave its commands running',
      );
    }
  }

  function forgetSelf(): void {
    if (recordPath === undefined || !recorded) return;
    recorded = false;
    rmSync(recordPath, { force: true });
  }

  /** Records of this space whose owner is gone, as path → the owner's mark. */
  function goneOwners(): Map<string, string> {
    const gone = new Map<string, string>();
    for (const name of namesIn(dir)) {
      const match = RECORD.exec(name);
      if (match === null || match[1] !== space) continue;
      if (readStat(procRoot, Number(match[2]))?.start === match[3]) continue;
      const path = join(dir, name);
      let ownerToken: string;
      try {
        ownerToken = readFileSync(path, 'utf8').trim();
      } catch {
        continue;
      }
      gone.set(path, ownerToken === '' ? '' : `${OWNER_ENV}=${ownerToken}`);
    }
    return gone;
  }

  function sweep(): number[] {
    const gone = goneOwners();
    if (gone.size === 0) return [];
    const marks = new Set([...gone.values()].filter((mark) => mark !== ''));
    // Group id → how many marked processes it holds. One pass over /proc serves every gone owner.
    const groups = new Map<number, number>();
    const ownGroup = selfStat?.pgid;
    for (const entry of marks.size === 0 ? [] : namesIn(procRoot)) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      if (pid === process.pid || !environOf(procRoot, pid).some((item) => marks.has(item))) continue;
      const pgid = readStat(procRoot, pid)?.pgid;
      // A gateway process started by a command of a gone owner carries its mark: never itself.
      if (pgid === undefined || pgid === ownGroup || pgid <= 1) continue;
      groups.set(pgid, (groups.get(pgid) ?? 0) + 1);
    }
    const killed: number[] = [];
    let failed = false;
    for (const [pgid, processes] of groups) {
      try {
        process.kill(-pgid, 'SIGKILL');
        killed.push(pgid);
        logger.warn(
          { pgid, processes },
          'killed the command of a gateway process that died (it would have kept running beside the retry)',
        );
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ESRCH') continue;
        failed = true;
        logger.warn({ pgid, err: (error as Error).message }, 'could not kill an orphaned command group');
      }
    }
    // A record stays while one of its commands could not be killed: the next sweep tries again.
    if (!failed) for (const path of gone.keys()) rmSync(path, { force: true });
    return killed;
  }

  return {
    claim() {
      if (recordPath === undefined) return { env, release: () => {} };
      record();
      live += 1;
      let released = false;
      return {
        env,
        release() {
          if (released) return;
          released = true;
          live -= 1;
          if (closed && live === 0) forgetSelf();
        },
      };
    },
    sweep,
    start(intervalMs = DEFAULT_SWEEP_INTERVAL_MS) {
      if (recordPath === undefined || closed || timer !== undefined) return;
      const run = () => {
        try {
          sweep();
        } catch (error) {
          logger.warn({ err: (error as Error).message }, 'orphaned command sweep failed');
        }
      };
      run();
      timer = setInterval(run, intervalMs);
      timer.unref();
    },
    close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      if (live === 0) forgetSelf();
    },
  };
}
