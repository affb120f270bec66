import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxBackend } from '../../../src/tools/terminal/backends/sandbox.js';
import { testConfig } from '../../helpers/test-config.js';
import { SYSTEM_PATH } from './terminal-test-kit.js';

/**
 * Why the sandbox backend cannot run on this machine (no bwrap, namespaces refused…), or
 * undefined when it can. Tests of the sandbox skip with this reason, never silently.
 */
export function sandboxUnavailableReason(): string | undefined {
  const home = mkdtempSync(join(tmpdir(), 'hermes-sandbox-probe-'));
  try {
    const config = testConfig(home);
    const check = sandboxBackend.check(
      config.terminal,
      { PATH: SYSTEM_PATH, HOME: home },
      { hermesHome: home, owner: {} },
    );
    return check.ok ? undefined : (check.reason ?? 'sandbox backend unusable');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** Live processes (other than this one) whose command line holds `marker`. Linux only. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2).charAt(0);
      if (state === 'Z' || state === 'X') continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Live `sleep <marker>` processes: the command itself, not a shell or bwrap whose arguments hold it. */
export function sleepersWith(marker: string): number[] {
  return processesWith(marker).filter((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return argv[0]?.endsWith('sleep') === true && argv[1] === marker;
    } catch {
      return false;
    }
  });
}

/** A unique `sleep` duration: its command line identifies the process on the host. */
export function sleepMarker(): string {
  return `${9000 + Math.floor(Math.random() * 900)}.${Date.now() % 1_000_000}${Math.floor(Math.random() * 1000)}`;
}

/** Three folders of a test machine: HERMES_HOME, the session working directory and the user's home. */
export function makeMachine(prefix: string): {
  hermesHome: string;
  work: string;
  userHome: string;
  cleanup: () => void;
} {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const hermesHome = join(root, 'hermes-home');
  const work = join(root, 'work');
  const userHome = join(root, 'user-home');
  for (const dir of [hermesHome, work, userHome]) mkdirSync(dir);
  return { hermesHome, work, userHome, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export function writeConfig(hermesHome: string, yaml: string): void {
  writeFileSync(join(hermesHome, 'config.yaml'), yaml);
}
