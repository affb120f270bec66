import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createPgAllowlistEntries } from '../../src/app/pg-allowlist-entries.js';
import { createPermanentAllowlist, type PermanentAllowlist } from '../../src/approval/allowlist.js';
import type { ApprovalRequest, GateContext, GateDecision } from '../../src/approval/approval-types.js';
import { createApprovalGate } from '../../src/approval/create-approval-gate.js';
import { detect } from '../../src/approval/detect.js';
import { createMemoryApprovalStore } from '../../src/approval/memory-approval-store.js';
import { createSharedAllowlist } from '../../src/approval/shared-allowlist.js';
import { createPgGatewayStore } from '../../src/gateway/store/pg-gateway-store.js';
import {
  dropSchemas,
  probePostgres,
  TEST_DATABASE_URL,
  testSchemaName,
} from '../helpers/pg-test-database.js';
import { silentLogger, testConfig } from '../helpers/test-config.js';

/*
 * The always-allowlist, the same cases on both places it lives: config.yaml (SQLite deployments:
 * processes share one HERMES_HOME) and PostgreSQL (DATABASE_URL: each process on an empty home of
 * its own, one database). Two "processes" each build their own list and gate.
 */

const CONFIG_YAML = 'command_allowlist:\n  - podman *\n';
const DANGEROUS = 'rm -rf build';
const keysOf = (command: string) => detect(command).findings.map((finding) => finding.key);

interface Process {
  readonly home: string;
  readonly allowlist: PermanentAllowlist;
}

interface Backend {
  readonly name: string;
  readonly skip: string | undefined;
  /** True when an "always" is written into config.yaml. */
  readonly writesConfig: boolean;
  /**
   * True when two processes may add at the same moment without losing an entry. config.yaml is
   * rewritten whole (read, edit, rename) with no lock between processes, so there only the adds of
   * one process are serialised; on SQLite deployments one gateway process takes the clicks.
   */
  readonly concurrentAcrossProcesses: boolean;
  twoProcesses(): Promise<[Process, Process]>;
}

const cleanups: (() => Promise<void> | void)[] = [];
const tempHome = (): string => {
  const home = mkdtempSync(join(tmpdir(), 'hermes-allowlist-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  writeFileSync(join(home, 'config.yaml'), CONFIG_YAML);
  return home;
};
const configList = (home: string) =>
  createPermanentAllowlist({
    initial: [],
    configPath: join(home, 'config.yaml'),
    logger: silentLogger,
    refreshMs: 0,
  });

const pgAvailability = await probePostgres();

const backends: Backend[] = [
  {
    name: 'config.yaml, one shared HERMES_HOME',
    skip: undefined,
    writesConfig: true,
    concurrentAcrossProcesses: false,
    twoProcesses: async () => {
      const home = tempHome();
      return [
        { home, allowlist: configList(home) },
        { home, allowlist: configList(home) },
      ];
    },
  },
  {
    name: 'postgres, an empty HERMES_HOME each',
    skip: pgAvailability.available ? undefined : pgAvailability.reason,
    writesConfig: false,
    concurrentAcrossProcesses: true,
    twoProcesses: async () => {
      const schema = testSchemaName();
      cleanups.push(() => dropSchemas([schema]));
      const make = async (): Promise<Process> => {
        const store = await createPgGatewayStore({
          url: TEST_DATABASE_URL,
          logger: silentLogger,
          schema,
          poolMax: 2,
        });
        cleanups.push(() => store.close());
        const home = tempHome();
        return {
          home,
          allowlist: createSharedAllowlist({
            config: configList(home),
            shared: createPgAllowlistEntries(store.pool),
            logger: silentLogger,
            refreshMs: 0,
          }),
        };
      };
      return [await make(), await make()];
    },
  },
];

function ctx(): GateContext {
  return {
    sessionKey: 'agent:main:telegram:dm:42',
    userId: '42',
    cwd: '/work/repo',
    platform: 'telegram',
    unattended: false,
    backend: 'local',
  };
}

function asked(decision: GateDecision): ApprovalRequest {
  if (decision.kind !== 'ask') throw new Error(`expected ask, got ${JSON.stringify(decision)}`);
  return decision.request;
}

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(
    `always-allowlist conformance (${backend.name}${backend.skip ? `: skipped, ${backend.skip}` : ''})`,
    () => {
      afterEach(async () => {
        for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      });

      it('an "always" answered through one process’s gate is honoured by the other’s gate', async () => {
        const [a, b] = await backend.twoProcesses();
        const gateOf = (p: Process) =>
          createApprovalGate({
            config: testConfig(p.home),
            store: createMemoryApprovalStore(),
            logger: silentLogger,
            allowlist: p.allowlist,
          });
        const gateA = gateOf(a);
        const gateB = gateOf(b);
        expect((await gateB.check(DANGEROUS, ctx())).kind).toBe('ask');
        const request = asked(await gateA.check(DANGEROUS, ctx()));
        const report = await gateA.decide(request.id, 'always', { userId: '42' });
        expect(report).toMatchObject({ status: 'recorded', persisted: { persisted: true } });
        expect(await gateB.check('rm -rf dist', { ...ctx(), sessionKey: 'another' })).toMatchObject({
          kind: 'allow',
          reason: 'allowlist',
        });
        // The config's own entry still applies in both.
        expect(await gateB.check('podman rm -f box', ctx())).toMatchObject({ kind: 'allow' });
        const configText = readFileSync(join(a.home, 'config.yaml'), 'utf8');
        if (backend.writesConfig) {
          expect(parse(configText)).toEqual({ command_allowlist: ['podman *', ...keysOf(DANGEROUS)] });
        } else {
          expect(configText).toBe(CONFIG_YAML);
          expect(readFileSync(join(b.home, 'config.yaml'), 'utf8')).toBe(CONFIG_YAML);
        }
      });

      it('concurrent adds all land; globs match whole non-compound commands only', async () => {
        const [a, b] = await backend.twoProcesses();
        const wanted = Array.from({ length: 8 }, (_, i) => `entry-${i}`);
        const adder = (i: number) => (backend.concurrentAcrossProcesses && i % 2 === 1 ? b : a);
        const reports = await Promise.all(wanted.map((entry, i) => adder(i).allowlist.add([entry])));
        expect(reports.every((report) => report.persisted)).toBe(true);
        await a.allowlist.add(['kubectl get *']);
        for (const p of [a, b]) {
          await p.allowlist.sync();
          expect([...p.allowlist.entries()].sort()).toEqual(['kubectl get *', 'podman *', ...wanted].sort());
          expect(p.allowlist.hasKey('entry-3')).toBe(true);
          expect(p.allowlist.hasKey('entry-9')).toBe(false);
        }
        expect(b.allowlist.matchesCommand('kubectl get pods', false)).toBe(true);
        expect(b.allowlist.matchesCommand('kubectl get pods; rm -rf x', true)).toBe(false);
        expect(b.allowlist.matchesCommand('kubectl delete pods', false)).toBe(false);
        expect(b.allowlist.matchesCommand('podman ps', false)).toBe(true);
        // Adding what is there already changes nothing.
        const again = await b.allowlist.add(['entry-0']);
        expect(again.persisted && [...again.entries].filter((entry) => entry === 'entry-0')).toEqual([
          'entry-0',
        ]);
      });
    },
  );
}
