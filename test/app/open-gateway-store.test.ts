import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openGatewayStore } from '../../src/app/open-gateway-store.js';
import { openStoreForCli } from '../../src/cli/pairing.js';
import { loadConfig } from '../../src/config/load-config.js';
import {
  dropSchemas,
  probePostgres,
  TEST_DATABASE_URL,
  testSchemaName,
} from '../helpers/pg-test-database.js';
import { makeTempHome, silentLogger } from '../helpers/test-config.js';

const availability = await probePostgres();

describe('openGatewayStore', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('opens SQLite in HERMES_HOME when DATABASE_URL is not set (the zero-setup default)', async () => {
    const temp = makeTempHome('hermes-open-store-');
    cleanups.push(temp.cleanup);
    const opened = await openGatewayStore(loadConfig({ env: {}, home: temp.home }), silentLogger);
    cleanups.push(() => opened.store.close());
    expect(opened.kind).toBe('sqlite');
    expect(opened.location).toBe(join(temp.home, 'state.db'));
    expect(existsSync(join(temp.home, 'state.db'))).toBe(true);
  });

  it('rejects a DATABASE_URL that is not a postgres URL', () => {
    expect(() => loadConfig({ env: { DATABASE_URL: 'mysql://x' }, home: '/tmp/none' })).toThrow();
  });

  it.skipIf(!availability.available)(
    `opens PostgreSQL with DATABASE_URL: the CLI and a gateway on two empty homes share pairing${availability.available ? '' : ` (skipped: ${availability.reason})`}`,
    async () => {
      const schema = testSchemaName();
      cleanups.push(() => dropSchemas([schema]));
      const configFor = () => {
        const temp = makeTempHome('hermes-open-store-');
        cleanups.push(temp.cleanup);
        const config = loadConfig({ env: { DATABASE_URL: TEST_DATABASE_URL }, home: temp.home });
        return { ...config, database: { ...config.database, schema } };
      };
      const first = configFor();
      const opened = await openGatewayStore(first, silentLogger);
      cleanups.push(() => opened.store.close());
      expect(opened.kind).toBe('postgres');
      expect(opened.location).toContain(schema);
      const cli = await openStoreForCli(configFor(), silentLogger);
      cleanups.push(() => cli.close());
      await opened.store.addPairingCode({
        code: 'PAIR42',
        platform: 'telegram',
        userId: '42',
        userName: 'ann',
        expiresAt: Date.now() + 60_000,
      });
      expect((await cli.consumePairingCode('telegram', 'PAIR42', 'cli'))?.userId).toBe('42');
      expect(await opened.store.isPairedUser('telegram', '42')).toBe(true);
      // Nothing of it went to either home.
      expect(existsSync(join(first.home, 'state.db'))).toBe(false);
    },
  );
});
