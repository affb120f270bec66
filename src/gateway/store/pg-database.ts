import pg from 'pg';
import type { Logger } from 'pino';
import { HermesError } from '../../errors/hermes-error.js';
import { errorText } from './sqlite-database.js';

export type PgPool = pg.Pool;
export type PgClient = pg.PoolClient;
/** What runs a query: the pool, or a client inside a transaction. */
export type PgQueryable = Pick<pg.Pool, 'query'>;

export interface OpenPgOptions {
  /** `postgres://user@host:5432/db` (DATABASE_URL). */
  readonly url: string;
  readonly logger: Logger;
  /** Tables live in this schema (created when missing); default `public`. Tests use their own. */
  readonly schema?: string;
  /** Connections at most; default 10. */
  readonly poolMax?: number;
}

export const DEFAULT_PG_POOL_MAX = 10;
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;
const INT8_OID = 20;

/**
 * 64-bit integers (epoch milliseconds, counters) come back as JS numbers: every value the store
 * writes is below 2^53, so nothing is lost, and rows compare equal to what SQLite returns.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

/**
 * Opens a pool on DATABASE_URL whose connections use `schema` (created when missing), for the
 * PostgreSQL gateway store. The pool is lazy: nothing connects before the first query.
 */
export function openPgPool(options: OpenPgOptions): PgPool {
  const schema = options.schema ?? 'public';
  if (!SCHEMA_PATTERN.test(schema)) {
    throw new HermesError('store_failed', `invalid PostgreSQL schema name ${JSON.stringify(schema)}`);
  }
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolMax ?? DEFAULT_PG_POOL_MAX,
    types,
    // search_path is set at connection start (no extra round trip per checkout).
    options: `-c search_path=${schema}`,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection dropped by the server must not crash the process; the next query reconnects.
  pool.on('error', (error) =>
    options.logger.warn({ err: errorText(error) }, 'postgres idle connection error'),
  );
  return pool;
}

/** Runs `work` in one transaction on one connection: committed when it returns, rolled back when it throws. */
export async function inPgTransaction<T>(pool: PgPool, work: (client: PgClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch {
      broken = true;
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

/** The URL with its password masked, for banners and logs. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparseable DATABASE_URL)';
  }
}
