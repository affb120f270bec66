import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createPgSharedFiles } from '../../src/app/pg-shared-files.js';
import { createPgGatewayStore } from '../../src/gateway/store/pg-gateway-store.js';
import type { SharedFiles } from '../../src/lib/shared-files.js';
import type { InboundMessage } from '../../src/platforms/adapter.js';
import { attachInboundFile } from '../../src/platforms/shared/inbound-file.js';
import { sharedAttachmentsOf } from '../../src/platforms/shared/shared-attachments.js';
import { createRegistry, type Registry } from '../../src/registry/create-registry.js';
import { defineTool } from '../../src/registry/define-tool.js';
import { readFileTool } from '../../src/tools/read-file.js';
import { searchFilesTool } from '../../src/tools/search-files.js';
import {
  dropSchemas,
  probePostgres,
  TEST_DATABASE_URL,
  testSchemaName,
} from '../helpers/pg-test-database.js';
import { silentLogger, testConfig, testServices } from '../helpers/test-config.js';

/*
 * Spilled-over results and chat attachments on PostgreSQL: stored by one "machine" (its own pool
 * and HERMES_HOME), read with read_file on another whose HERMES_HOME is empty.
 */

const availability = await probePostgres();
const call = { sessionKey: 'agent:main:telegram:dm:42', taskId: 't1' };

interface Machine {
  readonly home: string;
  readonly files: SharedFiles;
  registry(): Registry;
}

describe.skipIf(!availability.available)(
  `spilled results and attachments on PostgreSQL${availability.available ? '' : ` (skipped: ${availability.reason})`}`,
  () => {
    const cleanups: (() => Promise<void> | void)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function twoMachines(configYaml = ''): Promise<[Machine, Machine]> {
      const schema = testSchemaName();
      cleanups.push(() => dropSchemas([schema]));
      const make = async (): Promise<Machine> => {
        const store = await createPgGatewayStore({
          url: TEST_DATABASE_URL,
          logger: silentLogger,
          schema,
          poolMax: 2,
        });
        cleanups.push(() => store.close());
        const home = mkdtempSync(join(tmpdir(), 'hermes-pg-files-'));
        cleanups.push(() => rmSync(home, { recursive: true, force: true }));
        if (configYaml !== '') writeFileSync(join(home, 'config.yaml'), configYaml);
        const files = createPgSharedFiles(store.pool);
        return {
          home,
          files,
          registry: () => {
            const config = testConfig(home, { DATABASE_URL: TEST_DATABASE_URL });
            const registry = createRegistry({
              services: testServices(config, { sharedFiles: files }),
              sharedFiles: files,
            });
            registry.register(readFileTool);
            registry.register(searchFilesTool);
            registry.register(
              defineTool({
                name: 'big',
                toolset: 'test',
                description: 'x',
                parameters: z.object({ lines: z.number() }),
                maxResultChars: 1000,
                handler: (args) => Array.from({ length: args.lines }, (_, i) => `line ${i}`).join('\n'),
              }),
            );
            return registry;
          },
        };
      };
      return [await make(), await make()];
    }

    it('a spilled result is read with read_file (and search_files) on a worker with an empty home', async () => {
      const [a, b] = await twoMachines();
      const spilled = await a.registry().dispatch('big', { lines: 3000 }, call);
      if (spilled.kind !== 'ok') throw new Error(JSON.stringify(spilled));
      const path = spilled.spilledTo as string;
      expect(path.startsWith(join(a.home, 'cache', 'spillover'))).toBe(true);
      expect(spilled.content).toContain(`It was saved in full to: ${path}`);
      expect(existsSync(path.replace(a.home, b.home))).toBe(false);

      const registryB = b.registry();
      const read = await registryB.dispatch('read_file', { path, offset: 2000, limit: 3 }, call);
      expect(read).toMatchObject({ kind: 'ok' });
      expect(read.content).toContain('2000|line 1999');
      expect(read.content).toContain('2002|line 2001');
      // The footer names the path the model was given, which every worker can resolve.
      expect(read.content).toContain(`continue reading ${path}`);
      const found = await registryB.dispatch('search_files', { pattern: 'line 2999$', path }, call);
      expect(found.content).toContain('line 2999');
      // A path no machine stored is still simply missing.
      const missing = await registryB.dispatch('read_file', { path: `${path}.nope` }, call);
      expect(missing).toMatchObject({ kind: 'error' });
      expect(missing.content).toContain('File not found');
    });

    it('a result over database.spillover_max_bytes keeps the preview and says the rest is not kept', async () => {
      const [a] = await twoMachines('database:\n  spillover_max_bytes: 5000\n');
      const spilled = await a.registry().dispatch('big', { lines: 3000 }, call);
      if (spilled.kind !== 'ok') throw new Error(JSON.stringify(spilled));
      expect(spilled.spilledTo).toBeUndefined();
      expect(spilled.content).toContain('line 0');
      expect(spilled.content).toMatch(/over the 4\.9 KB kept for spilled results.*the rest is not kept/);
      expect(existsSync(join(a.home, 'cache', 'spillover'))).toBe(false);
    });

    const message = (text: string): InboundMessage => ({
      kind: 'message',
      platform: 'telegram',
      eventId: 'e1',
      messageId: 'm1',
      chat: { chatType: 'dm', chatId: '42' },
      sender: { userId: '42' },
      text,
      addressed: true,
      receivedAt: 0,
    });

    it('a chat attachment saved by the gateway is read on a worker with an empty home; too large: a note', async () => {
      const [gateway, worker] = await twoMachines('database:\n  attachment_max_bytes: 2000\n');
      const config = testConfig(gateway.home, { DATABASE_URL: TEST_DATABASE_URL });
      const shared = sharedAttachmentsOf(config, gateway.files);
      if (shared === undefined) throw new Error('expected shared attachments');
      const options = {
        maxBytes: 1_000_000,
        inboxDir: join(gateway.home, 'inbox', 'telegram'),
        logger: pino({ level: 'silent' }),
        what: 'telegram',
        describeError: (error: unknown) => String(error),
        shared,
      };
      const body = 'name,amount\nalice,3\nbob,4\n';
      const event = await attachInboundFile(
        message('see attached'),
        { kind: 'document', uniqueId: 'F1', fileName: 'sums.csv', size: body.length },
        async () => ({ response: new Response(body), remoteName: 'documents/sums.csv' }),
        options,
      );
      const path = /\[file saved at (\S+)\]/.exec(event.text)?.[1];
      expect(path).toBe(join(gateway.home, 'inbox', 'telegram', '42', 'F1-sums.csv'));
      expect(readFileSync(path as string, 'utf8')).toBe(body);
      const read = await worker.registry().dispatch('read_file', { path }, call);
      expect(read.content).toBe('1|name,amount\n2|alice,3\n3|bob,4');

      const big = await attachInboundFile(
        message(''),
        { kind: 'document', uniqueId: 'F2', fileName: 'big.bin' },
        async () => ({ response: new Response('x'.repeat(3000)), remoteName: 'documents/big.bin' }),
        options,
      );
      expect(big.text).toBe(
        '[file "big.bin" not kept: 3 KB is over the 2 KB limit for files shared with the workers, so it cannot be opened; ask for a smaller file if you need it]',
      );
      expect(existsSync(join(gateway.home, 'inbox', 'telegram', '42', 'F2-big.bin'))).toBe(false);
    });

    it('a worker whose home has the same path gets the file at that very path, and only in spillover/ or inbox/', async () => {
      const [a, b] = await twoMachines();
      // Stored by a machine whose HERMES_HOME is spelled like b's (as /data in every container).
      const inboxPath = join(b.home, 'inbox', 'telegram', '7', 'F9-notes.txt');
      await a.files.put(inboxPath, 'attachment', Buffer.from('hello\n'), 60_000);
      const read = await b.registry().dispatch('read_file', { path: inboxPath }, call);
      expect(read.content).toBe('1|hello');
      expect(readFileSync(inboxPath, 'utf8')).toBe('hello\n');
      // A key elsewhere in the home is copied aside, never written where it points.
      const elsewhere = join(b.home, 'notes.txt');
      await a.files.put(elsewhere, 'attachment', Buffer.from('aside\n'), 60_000);
      expect((await b.registry().dispatch('read_file', { path: elsewhere }, call)).content).toBe('1|aside');
      expect(existsSync(elsewhere)).toBe(false);
    });

    it('never writes a copy through a symlinked folder out of HERMES_HOME', async () => {
      const [a, b] = await twoMachines();
      const outside = mkdtempSync(join(tmpdir(), 'hermes-pg-files-outside-'));
      cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
      const path = join(b.home, 'inbox', 'telegram', '1', 'evil.txt');
      await a.files.put(path, 'attachment', Buffer.from('planted\n'), 60_000);
      mkdirSync(join(b.home, 'inbox'), { recursive: true });
      symlinkSync(outside, join(b.home, 'inbox', 'telegram'));
      const read = await b.registry().dispatch('read_file', { path }, call);
      expect(read).toMatchObject({ kind: 'error' });
      expect(readdirSync(outside)).toEqual([]);
    });

    it('a later put replaces the content; an expired file is not returned', async () => {
      const [a, b] = await twoMachines();
      await a.files.put('/x/cache/spillover/r.txt', 'spillover', Buffer.from('one'), 60_000);
      await a.files.put('/x/cache/spillover/r.txt', 'spillover', Buffer.from('two'), 60_000);
      expect(Buffer.from((await b.files.get('/x/cache/spillover/r.txt')) ?? []).toString()).toBe('two');
      await a.files.put('/x/inbox/telegram/1/old.txt', 'attachment', Buffer.from('old'), -1);
      expect(await b.files.get('/x/inbox/telegram/1/old.txt')).toBeUndefined();
      expect(await b.files.get('/x/never.txt')).toBeUndefined();
    });
  },
);
