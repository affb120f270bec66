import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database } from 'better-sqlite3';
import BetterSqlite3 from 'better-sqlite3';
import type { Logger } from 'pino';
import { HermesError } from '../../errors/hermes-error.js';
import { runMigrations } from './sqlite-migrations.js';

export type { Database as SqliteDatabase } from 'better-sqlite3';

export interface OpenSqliteOptions {
  /** File path (`$HERMES_HOME/state.db` in production) or `:memory:`. */
  readonly path: string;
  readonly logger: Logger;
  /** How long a writer waits for another process' lock before failing (ms). Default 5000. */
  readonly busyTimeoutMs?: number;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating if needed) the state database: owner-only file mode, WAL journal,
 * `synchronous = NORMAL` (a killed process loses nothing; a power cut may lose the last
 * commits), foreign keys on, a busy timeout, and the schema migrated to the latest version.
 */
export function openSqliteDatabase(options: OpenSqliteOptions): Database {
  const { path, logger } = options;
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const inMemory = path === ':memory:' || path === '';
  let db: Database | undefined;
  try {
    if (!inMemory) prepareFile(path);
    db = new BetterSqlite3(path, { timeout: busyTimeoutMs });
    db.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    if (!inMemory) {
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') logger.warn({ path, mode }, 'state database is not in WAL mode');
    }
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    const applied = runMigrations(db, logger);
    logger.info(
      { path, schemaVersion: db.pragma('user_version', { simple: true }), migrated: applied.length },
      'state database open',
    );
    return db;
  } catch (error) {
    db?.close();
    if (error instanceof HermesError) throw error;
    throw new HermesError('store_failed', `cannot open state database ${path}: ${errorText(error)}`, {
      cause: error,
    });
  }
}

/**
 * Creates the parent directory and, when missing, the file with mode 0600 (an existing file keeps
 * its mode). SQLite creates the -wal and -shm files with the database file's mode.
 */
function prepareFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
