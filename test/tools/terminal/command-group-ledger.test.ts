import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCommandGroupLedger, OWNER_ENV } from '../../../src/tools/terminal/command-group-ledger.js';
import { startGroup } from '../../../src/tools/terminal/spawn-group.js';
import { waitFor } from '../../gateway/e2e/gateway-kit.js';
import { liveMembers } from '../../helpers/live-processes.js';
import { silentLogger } from '../../helpers/test-config.js';

const OWNER = join(import.meta.dirname, 'fixtures', 'ledger-owner.ts');
const DIES_AT_SPAWN = join(import.meta.dirname, 'fixtures', 'ledger-owner-dies-at-spawn.ts');
const SWEEPER = join(import.meta.dirname, 'fixtures', 'ledger-sweeper.ts');
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
  const ledger = join(dir, 'run', 'command-groups');
  mkdirSync(ledger, { recursive: true });
  return ledger;
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

  it('finds a command whose owner died the instant it spawned it (before it saw the spawn)', async () => {
    const dir = ledgerDir();
    const pidFile = join(dir, '..', 'command.pid');
    const owner = spawn(process.execPath, ['--import', 'tsx', DIES_AT_SPAWN, dir, pidFile], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(owner);
    const signal = await new Promise((resolve) => owner.once('exit', (_code, sig) => resolve(sig)));
    expect(signal).toBe('SIGKILL');
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
    const command = Number(readFileSync(pidFile, 'utf8').trim());
    const escaped = Number(readFileSync(`${pidFile}.setsid`, 'utf8').trim());
    groups.push(command, escaped);
    await waitFor(() => liveMembers(command).length === 3 && liveMembers(escaped).length === 1);

    const sweeper = createCommandGroupLedger({ dir, logger: silentLogger });
    // The process that left the group (setsid) still carries the token: its own group goes too.
    expect(sweeper.sweep().sort()).toEqual([command, escaped].sort());
    await waitFor(() => liveMembers(command).length === 0 && liveMembers(escaped).length === 0);
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);

  it('never kills a process that does not carry the gone owner token (a recycled id)', async () => {
    const dir = ledgerDir();
    const stranger = await startGroup(
      { file: '/bin/sh', args: ['-c', 'sleep 120'], env: { PATH: '/usr/bin:/bin' } },
      { onOutput: () => {} },
    );
    groups.push(stranger.pid);
    const sweeper = createCommandGroupLedger({ dir, logger: silentLogger });
    sweeper.claim(); // records this process, which shows its id-space tag
    const own = readdirSync(dir)[0] as string;
    const space = own.split('.')[0];
    // A record left by an owner that is gone (pid 1 exists, but not with start time "1").
    writeFileSync(join(dir, `${space}.1.1`), 'some-other-token');
    expect(sweeper.sweep()).toEqual([]);
    expect(liveMembers(stranger.pid).length).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual([own]);
  });

  it('leaves the records of another host or container alone (its pids mean nothing here)', async () => {
    const dir = ledgerDir();
    const token = 'token-of-another-container';
    const group = await startGroup(
      { file: '/bin/sh', args: ['-c', 'sleep 120'], env: { PATH: '/usr/bin:/bin', [OWNER_ENV]: token } },
      { onOutput: () => {} },
    );
    groups.push(group.pid);
    const sweeper = createCommandGroupLedger({ dir, logger: silentLogger });
    sweeper.claim();
    // Even with a process here carrying its token, another space's record is not judged.
    const foreign = '0123456789ab.1.1';
    writeFileSync(join(dir, foreign), token);
    expect(sweeper.sweep()).toEqual([]);
    expect(readdirSync(dir)).toContain(foreign);
    expect(liveMembers(group.pid).length).toBeGreaterThan(0);
  });

  it('never kills its own process group, even when it carries a gone owner token', async () => {
    const dir = ledgerDir();
    const token = 'token-of-a-gone-gateway';
    // A sweeper that a command of a gone gateway started: it inherited that gateway's mark.
    const sweeper = spawn(process.execPath, ['--import', 'tsx', SWEEPER, dir], {
      env: { ...process.env, [OWNER_ENV]: token },
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(sweeper);
    groups.push(sweeper.pid as number);
    const probe = createCommandGroupLedger({ dir, logger: silentLogger });
    const release = probe.claim().release;
    const space = (readdirSync(dir)[0] as string).split('.')[0];
    release();
    probe.close();
    writeFileSync(join(dir, `${space}.1.1`), token);
    let output = '';
    sweeper.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exit = await new Promise((resolve) =>
      sweeper.once('exit', (code, signal) => resolve({ code, signal })),
    );
    expect(exit).toEqual({ code: 0, signal: null });
    expect(JSON.parse(output)).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);

  it('marks its commands, records itself before the first, and forgets itself once closed with none left', async () => {
    const dir = ledgerDir();
    const ledger = createCommandGroupLedger({ dir, logger: silentLogger });
    expect(readdirSync(dir)).toEqual([]);
    let output = '';
    const group = await startGroup(
      { file: '/bin/sh', args: ['-c', `echo "$${OWNER_ENV}"; sleep 0.3`], env: { PATH: '/usr/bin:/bin' } },
      { onOutput: (text) => (output += text), ledger },
    );
    const record = new RegExp(`^[0-9a-f]{12}\\.${process.pid}\\.\\d+$`);
    expect(readdirSync(dir)).toEqual([expect.stringMatching(record)]);
    const token = readFileSync(join(dir, readdirSync(dir)[0] as string), 'utf8');
    // Closed while the command runs: the record stays for the sweepers until the command is gone.
    ledger.close();
    expect(readdirSync(dir)).toEqual([expect.stringMatching(record)]);
    await group.exited;
    expect(output.trim()).toBe(token);
    expect(readdirSync(dir)).toEqual([]);
    ledger.close();
  });
});
