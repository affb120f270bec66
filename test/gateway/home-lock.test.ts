import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isHermesError } from '../../src/errors/hermes-error.js';
import { acquireHomeLock } from '../../src/gateway/home-lock.js';

const fixture = resolve(import.meta.dirname, 'fixtures/hold-home-lock.ts');

describe('acquireHomeLock', () => {
  let home: string;
  let child: ChildProcess | undefined;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hermes-lock-'));
  });
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
    rmSync(home, { recursive: true, force: true });
  });

  it('lets one holder in and tells a second who holds the home', () => {
    const first = acquireHomeLock(home, { command: 'hermes-gateway start', pid: 4242 });
    let refused: unknown;
    try {
      acquireHomeLock(home, { command: 'hermes-gateway start' });
    } catch (error) {
      refused = error;
    }
    expect(isHermesError(refused, 'home_locked')).toBe(true);
    expect((refused as Error).message).toContain('pid 4242');
    expect((refused as Error).message).toContain('REDIS_URL');
    first.release();
    first.release();
    acquireHomeLock(home, { command: 'again' }).release();
  });

  it('is an OS lock: another process holding it (even with its handle dropped and collected) keeps us out, and its death (SIGKILL) frees it', async () => {
    child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', fixture, home], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
    expect(line.toString()).toContain('locked');
    expect(() => acquireHomeLock(home, { command: 'second' })).toThrow(/pid \d+ .*hold-home-lock fixture/);
    child.kill('SIGKILL');
    await once(child, 'exit');
    child = undefined;
    const lock = acquireHomeLock(home, { command: 'after the crash' });
    lock.release();
  });
});
