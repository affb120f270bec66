import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempHome } from '../helpers/test-config.js';

const bin = resolve(import.meta.dirname, '../../bin/hermes-gateway');

interface Run {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
}

/** Starts the real executable as a user would, with a clean environment. */
function start(env: Record<string, string>): Run {
  const child = spawn(bin, ['start'], {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: Run = { child, stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => {
    run.stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    run.stderr += chunk.toString();
  });
  return run;
}

async function exitOf(run: Run): Promise<number | null> {
  if (run.child.exitCode !== null) return run.child.exitCode;
  const [code] = (await once(run.child, 'exit')) as [number | null];
  return code;
}

/** Waits for the "started" log line and returns the HTTP port it listens on. */
async function listeningPort(run: Run): Promise<number> {
  for (let i = 0; i < 300; i += 1) {
    const match = /"http":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(run.stdout);
    if (match?.[1] !== undefined) return Number(match[1]);
    if (run.child.exitCode !== null) throw new Error(`gateway exited: ${run.stderr}${run.stdout}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gateway did not start: ${run.stderr}${run.stdout}`);
}

describe('hermes-gateway start: failures a newcomer hits', () => {
  let homes: { home: string; cleanup: () => void }[];
  let runs: Run[];
  beforeEach(() => {
    homes = [makeTempHome(), makeTempHome()];
    runs = [];
  });
  afterEach(async () => {
    for (const run of runs) {
      if (run.child.exitCode === null && run.child.signalCode === null) {
        run.child.kill('SIGKILL');
        await once(run.child, 'exit');
      }
    }
    for (const home of homes) home.cleanup();
  });

  it('a second gateway on the same home (embedded queue) refuses to start and names the first', async () => {
    const home = homes[0]?.home as string;
    const first = start({ HERMES_HOME: home, HERMES_HTTP_PORT: '0' });
    runs.push(first);
    await listeningPort(first);
    const second = start({ HERMES_HOME: home, HERMES_HTTP_PORT: '0' });
    runs.push(second);
    expect(await exitOf(second)).toBe(2);
    expect(second.stderr).toContain(`pid ${first.child.pid}`);
    expect(second.stderr).toContain('REDIS_URL');
    expect(first.child.exitCode).toBeNull();
  });

  it('a port in use ends start-up with exit 2, naming the address and how to pick another', async () => {
    const first = start({ HERMES_HOME: homes[0]?.home as string, HERMES_HTTP_PORT: '0' });
    runs.push(first);
    const port = await listeningPort(first);
    const second = start({ HERMES_HOME: homes[1]?.home as string, HERMES_HTTP_PORT: String(port) });
    runs.push(second);
    expect(await exitOf(second)).toBe(2);
    expect(second.stderr).toContain(`127.0.0.1:${port} is already in use`);
    expect(second.stderr).toContain('HERMES_HTTP_PORT');
    expect(second.stderr).not.toMatch(/\n\s+at /);
  });

  it('an unreachable REDIS_URL ends start-up within the configured time with what to check', async () => {
    const home = homes[0]?.home as string;
    writeFileSync(join(home, 'config.yaml'), 'redis:\n  connect_timeout_ms: 1500\n');
    const run = start({
      HERMES_HOME: home,
      HERMES_HTTP_PORT: '0',
      REDIS_URL: 'redis://:hunter2secret@127.0.0.1:1',
    });
    runs.push(run);
    expect(await exitOf(run)).toBe(2);
    expect(run.stderr).toContain('Redis is not reachable after 2 s');
    expect(run.stderr).toContain('nothing accepts connections at redis://127.0.0.1:1');
    expect(run.stderr + run.stdout).not.toContain('hunter2secret');
  });
});
