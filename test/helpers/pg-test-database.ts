import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * PostgreSQL for tests: `HERMES_TEST_DATABASE_URL` (set by .ci/run when it had to start its own
 * cluster), else the machine's server on 127.0.0.1:5432, database `test`, trust auth. Every test
 * file works in schemas of its own (`hermes_t_<random>`) and drops them when done.
 */
export const TEST_DATABASE_URL =
  process.env['HERMES_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface PgAvailability {
  readonly available: boolean;
  /** Why PostgreSQL tests are skipped (when not available). */
  readonly reason: string;
}

/**
 * Probes the test server once. When `HERMES_REQUIRE_POSTGRES=1` (CI), an unreachable server is
 * an error instead of a skip.
 */
export async function probePostgres(url = TEST_DATABASE_URL): Promise<PgAvailability> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { available: true, reason: '' };
  } catch (error) {
    const reason = `PostgreSQL not reachable at ${url} (${(error as Error).message}); .ci/run starts one`;
    if (process.env['HERMES_REQUIRE_POSTGRES'] === '1') throw new Error(reason);
    return { available: false, reason };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A fresh schema name for one test. */
export function testSchemaName(): string {
  return `hermes_t_${randomBytes(6).toString('hex')}`;
}

/** Drops schemas made by a test (and everything in them). */
export async function dropSchemas(schemas: readonly string[], url = TEST_DATABASE_URL): Promise<void> {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const schema of schemas) {
      if (!/^hermes_t_[0-9a-f]+$/.test(schema)) throw new Error(`refusing to drop schema ${schema}`);
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  } finally {
    await client.end();
  }
}
