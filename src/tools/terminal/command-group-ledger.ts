import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';

/** The environment variable that marks every process a gateway process started for a command. */
export const OWNER_ENV = 'HERMES_COMMAND_OWNER';

/** Default time between sweeps for groups left by processes that died, ms. */
export const DEFAULT_SWEEP_INTERVAL_MS = 2_000;

export interface CommandGroupLedger {
  /** Added to a command's environment: marks its processes as this gateway process' own. */
  readonly env: Readonly<Record<string, string>>;
  /** Records a started process group (the leader's pid); the returned function forgets it. */
  track(pgid: number): () => void;
  /**
   * Kills the groups recorded by gateway processes that are gone (killed, crashed) and forgets
   * them. Returns the process group ids that were killed.
   */
  sweep(): number[];
  /** Sweeps now and then every `intervalMs` (timer unref'd). */
  start(intervalMs?: number): void;
  /** Stops the timer; idempotent. This process' own records go with its groups. */
  close(): void;
}

export interface CommandGroupLedgerOptions {
  /** Shared by every gateway process of one HERMES_HOME: `$HERMES_HOME/run/command-groups`. */
  readonly dir: string;
  readonly logger: Logger;
  /** Where process information is read (default /proc). */
  readonly procRoot?: string;
}

interface Owner {
  readonly pid: number;
  /** Start time of the owner process in clock ticks since boot (field 22 of /proc/<pid>/stat). */
  readonly start: string;
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

function carriesToken(procRoot: string, pid: number, marker: string): boolean {
  try {
    return readFileSync(join(procRoot, String(pid), 'environ'), 'latin1')
      .split('\0')
      .includes(marker);
  } catch {
    return false;
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

const RECORD = /^([0-9a-f]{12})\.(\d+)\.(\d+)\.(\d+)$/;

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
 * that gap on Linux: every group is recorded under the shared HERMES_HOME
 * (`<space>.<ownerPid>.<ownerStart>.<pgid>`, holding the owner’s random token), every command carries
 * that token in its environment, and each gateway process regularly kills the groups of owners
 * that are gone. A group is killed only if one of its processes still carries the dead owner's
 * token, so a recycled process id is never hit (a group made by `setsid` belongs to one session,
 * which no outside process can join). Records are tagged with their process-id space (host and
 * PID namespace) and only judged within it. Without /proc (macOS) it records nothing.
 */
export function createCommandGroupLedger(options: CommandGroupLedgerOptions): CommandGroupLedger {
  const procRoot = options.procRoot ?? '/proc';
  const { dir, logger } = options;
  const token = randomUUID();
  const space = pidSpaceTag(procRoot);
  const selfStat = readStat(procRoot, process.pid);
  const self: Owner | undefined =
    selfStat === undefined ? undefined : { pid: process.pid, start: selfStat.start };
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const ownerAlive = (owner: Owner) => readStat(procRoot, owner.pid)?.start === owner.start;

  function membersOf(pgid: number): number[] {
    const members: number[] = [];
    for (const entry of namesIn(procRoot)) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      if (readStat(procRoot, pid)?.pgid === pgid) members.push(pid);
    }
    return members;
  }

  function sweep(): number[] {
    const killed: number[] = [];
    for (const name of namesIn(dir)) {
      const match = RECORD.exec(name);
      if (match === null || match[1] !== space) continue;
      const owner: Owner = { pid: Number(match[2]), start: match[3] as string };
      const pgid = Number(match[4]);
      if (ownerAlive(owner)) continue;
      const path = join(dir, name);
      let ownerToken: string;
      try {
        ownerToken = readFileSync(path, 'utf8').trim();
      } catch {
        continue;
      }
      const marker = `${OWNER_ENV}=${ownerToken}`;
      const members = membersOf(pgid);
      if (ownerToken !== '' && members.some((pid) => carriesToken(procRoot, pid, marker))) {
        try {
          process.kill(-pgid, 'SIGKILL');
          killed.push(pgid);
          logger.warn(
            { pgid, processes: members.length, ownerPid: owner.pid },
            'killed the command of a gateway process that died (it would have kept running beside the retry)',
          );
        } catch (error) {
          logger.warn({ pgid, err: (error as Error).message }, 'could not kill an orphaned command group');
          continue;
        }
      }
      rmSync(path, { force: true });
    }
    return killed;
  }

  return {
    env: self === undefined ? {} : { [OWNER_ENV]: token },
    track(pgid) {
      if (self === undefined || closed) return () => {};
      const path = join(dir, `${space}.${self.pid}.${self.start}.${pgid}`);
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        writeFileSync(path, token, { mode: 0o600 });
      } catch (error) {
        logger.warn({ pgid, err: (error as Error).message }, 'command group not recorded');
        return () => {};
      }
      let forgotten = false;
      return () => {
        if (forgotten) return;
        forgotten = true;
        rmSync(path, { force: true });
      };
    },
    sweep,
    start(intervalMs = DEFAULT_SWEEP_INTERVAL_MS) {
      if (self === undefined || closed || timer !== undefined) return;
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
    },
  };
}
