import { join } from 'node:path';
import type { GatewayStore } from '../../../src/gateway/store/gateway-store.js';
import { createPgGatewayStore } from '../../../src/gateway/store/pg-gateway-store.js';
import {
  dropSchemas,
  probePostgres,
  TEST_DATABASE_URL,
  testSchemaName,
} from '../../helpers/pg-test-database.js';
import { silentLogger } from '../../helpers/test-config.js';
import { type ManualClock, manualClock, storeFixture } from './store-fixture.js';

/**
 * The backends the store conformance suite runs against: SQLite (a file in a temp dir) and
 * PostgreSQL (a schema of its own per store, dropped afterwards). PostgreSQL is skipped, with
 * the reason in the suite's name, only when no server answers (CI makes sure one does).
 */
export interface StoreBackend {
  readonly name: string;
  readonly skip: string | undefined;
  open(clock?: ManualClock): Promise<GatewayStore>;
  cleanup(): Promise<void>;
}

const pgAvailability = await probePostgres();

export function storeBackends(): StoreBackend[] {
  const sqlite = storeFixture();
  const schemas: string[] = [];
  const pgStores: GatewayStore[] = [];
  return [
    {
      name: 'sqlite',
      skip: undefined,
      open: async (clock = manualClock()) =>
        sqlite.open(join(sqlite.dir(), 'state.db'), clock, { searchIndexIntervalMs: 0 }),
      cleanup: () => sqlite.cleanup(),
    },
    {
      name: 'postgres',
      skip: pgAvailability.available ? undefined : pgAvailability.reason,
      open: async (clock = manualClock()) => {
        const schema = testSchemaName();
        schemas.push(schema);
        const store = await createPgGatewayStore({
          url: TEST_DATABASE_URL,
          logger: silentLogger,
          schema,
          poolMax: 4,
          now: clock.now,
        });
        pgStores.push(store);
        return store;
      },
      cleanup: async () => {
        for (const store of pgStores.splice(0)) await store.close();
        await dropSchemas(schemas.splice(0));
      },
    },
  ];
}
