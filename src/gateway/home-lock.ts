import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';

/** The lock file in HERMES_HOME, and the note beside it saying who holds the lock. */
export const HOME_LOCK_FILE = 'gateway.lock';
const HOLDER_FILE = 'gateway.lock.json';

/**
 * The connections holding a lock until released. A better-sqlite3 connection that becomes
 * garbage is closed by its finaliser, which would drop the OS lock while the caller still counts
 * on it (a caller that keeps no handle, as a process that locks and runs until it dies).
 */
const held = new Set<Database.Database>();

const holderSchema = z.object({
  pid: z.number(),
  host: z.string(),
  startedAt: z.string(),
  command: z.string(),
});

export interface HomeLock {
  /** Gives the lock up; idempotent. The OS also drops it when the process exits or crashes. */
  release(): void;
}

export interface HomeLockOptions {
  /** What the holder runs, shown to a second process (`hermes-gateway start`). */
  readonly command: string;
  readonly pid?: number;
  readonly now?: () => Date;
}

/**
 * Takes an exclusive OS file lock on HERMES_HOME for the embedded queue, whose per-session
 * locks live in this process only: a second gateway on the same home would run turns of one
 * session side by side. The lock is SQLite's own (fcntl) lock on `gateway.lock`, held in
 * exclusive locking mode for the life of the connection, so the kernel releases it when the
 * process ends however it ends — nothing goes stale. Who holds it is noted in
 * `gateway.lock.json`, which is informational only.
 */
export function acquireHomeLock(home: string, options: HomeLockOptions): HomeLock {
  const db = new Database(join(home, HOME_LOCK_FILE), { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS lock_holder (pid INTEGER); COMMIT;');
  } catch (error) {
    db.close();
    if (isBusy(error)) throw lockedError(home);
    throw error;
  }
  const holder = {
    pid: options.pid ?? process.pid,
    host: hostname(),
    startedAt: (options.now?.() ?? new Date()).toISOString(),
    command: options.command,
  };
  try {
    writeFileSync(join(home, HOLDER_FILE), `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  } catch {
    // The note only helps the message of a second process; the lock itself is what counts.
  }
  held.add(db);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      held.delete(db);
      db.close();
    },
  };
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

function lockedError(home: string): HermesError {
  let who = 'another process';
  try {
    const holder = holderSchema.parse(JSON.parse(readFileSync(join(home, HOLDER_FILE), 'utf8')));
    who = `another gateway (pid ${holder.pid} on ${holder.host}, \`${holder.command}\`, started ${holder.startedAt})`;
  } catch {
    // No readable note: say what we know.
  }
  return new HermesError(
    'home_locked',
    `${who} already runs with HERMES_HOME ${home} and the embedded queue. Two gateways on one home ` +
      'would run turns of the same session at once, so this one does not start. Stop the other one, ' +
      'give this one its own HERMES_HOME, or set REDIS_URL so several gateways and workers share one ' +
      'queue (see docs/operations.md).',
  );
}
