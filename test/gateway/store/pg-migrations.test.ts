import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPgGatewayStore, type PgGatewayStore } from '../../../src/gateway/store/pg-gateway-store.js';
import { PG_LATEST_SCHEMA_VERSION, PG_MIGRATIONS } from '../../../src/gateway/store/pg-migrations.js';
import {
  dropSchemas,
  probePostgres,
  TEST_DATABASE_URL,
  testSchemaName,
} from '../../helpers/pg-test-database.js';
import { silentLogger } from '../../helpers/test-config.js';

const availability = await probePostgres();

describe.skipIf(!availability.available)(
  `postgres store migrations${availability.available ? '' : ` (skipped: ${availability.reason})`}`,
  () => {
    const schemas: string[] = [];
    const stores: PgGatewayStore[] = [];
    afterEach(async () => {
      for (const store of stores.splice(0)) await store.close();
      await dropSchemas(schemas.splice(0));
    });

    async function open(schema: string): Promise<PgGatewayStore> {
      const store = await createPgGatewayStore({
        url: TEST_DATABASE_URL,
        logger: silentLogger,
        schema,
        poolMax: 2,
      });
      stores.push(store);
      return store;
    }

    async function query(sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        return await client.query(sql, params);
      } finally {
        await client.end();
      }
    }

    it('migrates once when several processes start together (advisory lock), each version recorded once', async () => {
      const schema = testSchemaName();
      schemas.push(schema);
      const opened = await Promise.all(Array.from({ length: 5 }, () => open(schema)));
      const versions = await query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
      expect(versions.rows.map((r: { version: number }) => r.version)).toEqual(
        PG_MIGRATIONS.map((m) => m.version),
      );
      // Every one of them serves the same state.
      const session = await opened[0]?.getOrCreateSession('agent:main:telegram:dm:1');
      expect((await opened[4]?.getSession('agent:main:telegram:dm:1'))?.sessionId).toBe(session?.sessionId);
    });

    it('refuses a database migrated by a newer release', async () => {
      const schema = testSchemaName();
      schemas.push(schema);
      await (await open(schema)).close();
      await query(
        `INSERT INTO "${schema}".schema_migrations (version, name, applied_at) VALUES ($1, 'future', 0)`,
        [PG_LATEST_SCHEMA_VERSION + 1],
      );
      await expect(open(schema)).rejects.toMatchObject({
        code: 'store_failed',
        message: expect.stringMatching(/newer/),
      });
    });

    it('fails with store_failed when the server cannot be reached', async () => {
      await expect(
        createPgGatewayStore({
          url: 'postgres://postgres@127.0.0.1:1/test',
          logger: silentLogger,
          schema: testSchemaName(),
        }),
      ).rejects.toMatchObject({ code: 'store_failed' });
    });
  },
);
