import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPgMemoryEntries } from '../../src/app/pg-memory-entries.js';
import { createPgTodoPersistence } from '../../src/app/pg-todo-persistence.js';
import { createPgGatewayStore, type PgGatewayStore } from '../../src/gateway/store/pg-gateway-store.js';
import { MemoryStore } from '../../src/tools/memory/memory-store.js';
import { TodoStore } from '../../src/tools/todo/todo-store.js';
import {
  dropSchemas,
  probePostgres,
  TEST_DATABASE_URL,
  testSchemaName,
} from '../helpers/pg-test-database.js';
import { silentLogger } from '../helpers/test-config.js';

const availability = await probePostgres();

describe.skipIf(!availability.available)(
  `memory and todo on PostgreSQL${availability.available ? '' : ` (skipped: ${availability.reason})`}`,
  () => {
    const cleanups: (() => Promise<void> | void)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    /** Two "machines": each its own empty home and its own pool, one database. */
    async function twoWorkers(): Promise<{ stores: PgGatewayStore[]; homes: string[] }> {
      const schema = testSchemaName();
      cleanups.push(() => dropSchemas([schema]));
      const stores: PgGatewayStore[] = [];
      const homes: string[] = [];
      for (let i = 0; i < 2; i += 1) {
        const store = await createPgGatewayStore({
          url: TEST_DATABASE_URL,
          logger: silentLogger,
          schema,
          poolMax: 4,
        });
        cleanups.push(() => store.close());
        stores.push(store);
        const home = mkdtempSync(join(tmpdir(), 'hermes-pg-tools-'));
        cleanups.push(() => rmSync(home, { recursive: true, force: true }));
        homes.push(home);
      }
      return { stores, homes };
    }

    it('memory entries written on one worker are read on another; concurrent adds all land; nothing on disk', async () => {
      const { stores, homes } = await twoWorkers();
      const memories = stores.map(
        (store, i) =>
          new MemoryStore({
            root: join(homes[i] ?? '', 'memories'),
            entries: createPgMemoryEntries(store.pool),
          }),
      );
      const [a, b] = memories as [MemoryStore, MemoryStore];
      await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).add('telegram.42', 'memory', `fact ${i}`)),
      );
      const seen = await b.read('telegram.42', 'memory');
      expect([...seen.entries].sort()).toEqual(Array.from({ length: 10 }, (_, i) => `fact ${i}`).sort());
      await a.replace('telegram.42', 'memory', 'fact 3', 'fact three');
      expect((await b.read('telegram.42', 'memory')).entries).toContain('fact three');
      // Over the cap: refused, and nothing is written.
      await expect(a.add('telegram.42', 'memory', 'x'.repeat(3000))).rejects.toMatchObject({
        code: 'memory_full',
      });
      expect((await b.read('telegram.42', 'memory')).entries).toHaveLength(10);
      await b.remove('telegram.42', 'memory', 'fact three');
      expect((await a.read('telegram.42', 'memory')).entries).toHaveLength(9);
      expect(
        await a.promptSection({
          platform: 'telegram',
          userId: '42',
          sessionKey: 'agent:main:telegram:dm:42',
        }),
      ).toBeTypeOf('string');
      for (const home of homes) expect(readdirSync(home)).toEqual([]);
    });

    it('a todo list written on one worker is what the next turn on another worker reads', async () => {
      const { stores } = await twoWorkers();
      const [a, b] = stores.map(
        (store) => new TodoStore({ persistence: createPgTodoPersistence(store.pool), shared: true }),
      ) as [TodoStore, TodoStore];
      const key = 'agent:main:telegram:dm:42';
      expect(await b.read(key)).toEqual([]);
      await a.update(key, () => [{ id: '1', content: 'write tests', status: 'pending' }]);
      expect(await b.read(key)).toEqual([{ id: '1', content: 'write tests', status: 'pending' }]);
      await b.update(key, (list) => list.map((item) => ({ ...item, status: 'completed' as const })));
      expect((await a.read(key))[0]?.status).toBe('completed');
      await a.clear(key);
      expect(await b.read(key)).toEqual([]);
    });
  },
);
