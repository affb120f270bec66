import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCommandGroupLedger, OWNER_ENV } from '../../../src/tools/terminal/command-group-ledger.js';
import { startGroup } from '../../../src/tools/terminal/spawn-group.js';
import { waitFor } from '../../gateway/e2e/gateway-kit.js';
import { liveMembers } from '../../helpers/live-processes.js';
import { silentLogger } from '../../helpers/test-config.js';

const OWNER = join(import.meta.dirname, 'fixtures', 'ledger-owner.ts');
const linux = existsSync('/proc/self/stat');

const groups: number[] = [];
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const pgid of groups.splice(0)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const ledgerDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-ledger-'));
  dirs.push(dir);
  return join(dir, 'run', 'command-groups');
};

describe.skipIf(!linux)('command group ledger (commands die with the process that started them)', () => {
  it('kills the recorded groups of a process that was killed, and nothing else', async () => {
    const dir = ledgerDir();
    const owner = spawn(process.execPath, ['--import', 'tsx', OWNER, dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(owner);
    const line = await new Promise<string>((resolve, reject) => {
      owner.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      owner.once('exit', (code) => reject(new Error(`the owner exited early (${code})`)));
    });
    const { tracked, untracked } = JSON.parse(line) as { tracked: number; untracked: number };
    groups.push(tracked, untracked);
    // sh, the background sleep and the foreground one.
    await waitFor(() => liveMembers(tracked).length === 3 && liveMembers(untracked).length === 3);
    expect(readdirSync(dir)).toHaveLength(1);

    const sweeper = createCommandGroupLedger({ dir, logger: silentLogger });
    expect(sweeper.sweep()).toEqual([]); // the owner is alive: its commands are its own business
    expect(liveMembers(tracked)).toHaveLength(3);

    owner.kill('SIGKILL');
    await new Promise((resolve) => owner.once('exit', resolve));
    // Orphans now: without the ledger they would run on.
    expect(liveMembers(tracked)).toHaveLength(3);
    expect(sweeper.sweep()).toEqual([tracked]);
    await waitFor(() => liveMembers(tracked).length === 0);
    expect(liveMembers(untracked)).toHaveLength(3);
    expect(readdirSync(dir)).toEqual([]);
    expect(sweeper.sweep()).toEqual([]);
  }, 30_000);

  it('never kills a group whose processes do not carry the dead owner token (a recycled id)', async () => {
    const dir = ledgerDir();
    const stranger = await startGroup(
      { file: '/bin/sh', args: ['-c', 'sleep 120'], env: { PATH: '/usr/bin:/bin' } },
      { onOutput: () => {} },
    );
    groups.push(stranger.pid);
    const sweeper = createCommandGroupLedger({ dir, logger: silentLogger });
    sweeper.track(999_999); // makes the directory and shows this process' id-space tag
    const space = readdirSync(dir)[0]?.split('.')[0];
    // A record left by an owner that is gone (no process has pid 1's start time "1" but pid 1).
    writeFileSync(join(dir, `${space}.1.1.${stranger.pid}`), 'some-other-token');
    expect(sweeper.sweep()).toEqual([]);
    expect(liveMembers(stranger.pid).length).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/\.999999$/)]);
  });

  it('leaves the records of another host or container alone (its pids mean nothing here)', async () => {
    const dir = ledgerDir();
    const group = await startGroup(
      { file: '/bin/sh', args: ['-c', 'sleep 120'], env: { PATH: '/usr/bin:/bin' } },
      { onOutput: () => {} },
    );
    groups.push(group.pid);
    const sweeper = createCommandGroupLedger({ dir, logger: silentLogger });
    sweeper.track(999_999);
    // Even with a matching token and a group id that exists here, another space's record is not judged.
    const foreign = `0123456789ab.1.1.${group.pid}`;
    writeFileSync(join(dir, foreign), 'token-of-another-container');
    expect(sweeper.sweep()).toEqual([]);
    expect(readdirSync(dir)).toContain(foreign);
    expect(liveMembers(group.pid).length).toBeGreaterThan(0);
  });

  it('marks the commands it records and forgets a group once its leader has exited', async () => {
    const dir = ledgerDir();
    const ledger = createCommandGroupLedger({ dir, logger: silentLogger });
    let output = '';
    const group = await startGroup(
      { file: '/bin/sh', args: ['-c', `echo "$${OWNER_ENV}"; sleep 0.2`], env: { PATH: '/usr/bin:/bin' } },
      { onOutput: (text) => (output += text), ledger },
    );
    expect(readdirSync(dir)).toEqual([
      expect.stringMatching(new RegExp(`^[0-9a-f]{12}\\.${process.pid}\\.\\d+\\.${group.pid}$`)),
    ]);
    await group.exited;
    expect(output.trim()).toBe(ledger.env[OWNER_ENV]);
    expect(readdirSync(dir)).toEqual([]);
  });
});
