import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve, sep } from 'node:path';
import { classifySensitivePath } from '../../../approval/sensitive-paths.js';
import { HermesError } from '../../../errors/hermes-error.js';
import type { TerminalConfig } from './backend-types.js';

/** What the sandbox must know about the machine to decide what is visible. */
export interface SandboxPlaces {
  /** HERMES_HOME, absolute: never visible inside. */
  readonly hermesHome: string;
  /** Home directories to hide: the gateway user's (`os.homedir()`) and the command's `HOME`. */
  readonly homes: readonly string[];
}

/**
 * Directories that make up "the system", shown read-only when they exist. `/var` is not one of
 * them: logs, mail, spools and databases live there (list what a command needs in
 * `terminal.sandbox.readable`, e.g. /var/lib/dpkg).
 */
export const SYSTEM_DIRS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/opt',
  '/nix',
];

/** Never writable, nor anything holding them: the system, kernel interfaces, the shared /tmp. */
const NEVER_WRITABLE: readonly string[] = [
  ...SYSTEM_DIRS,
  '/boot',
  '/proc',
  '/sys',
  '/dev',
  '/run',
  '/tmp',
  '/var',
  '/var/tmp',
];
/** Never writable below them either (a project under /var or /tmp is fine; one under /etc is not). */
const NEVER_WRITABLE_BELOW: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/boot',
  '/proc',
  '/sys',
  '/dev',
  '/run',
  '/nix',
];

/** True when `child` is `parent` or below it (plain string paths, already absolute and normalised). */
export function isWithin(child: string, parent: string): boolean {
  if (parent === '/') return true;
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : `${parent}${sep}`);
}

/** `~` and `~/x` against the gateway user's home; other relative paths are refused. */
export function expandConfigPath(path: string, what: string): string {
  if (path === '~') return homedir();
  if (path.startsWith('~/')) return resolve(homedir(), path.slice(2));
  if (!isAbsolute(path)) {
    throw new HermesError('exec_failed', `${what}: '${path}' must be an absolute path or start with ~/`);
  }
  return resolve(path);
}

/** The path and, when it exists, the real path it leads to (both are judged). */
function spellings(path: string): string[] {
  if (!existsSync(path)) return [path];
  const real = realpathSync(path);
  return real === path ? [path] : [path, real];
}

/**
 * Why `path` may not be writable inside the sandbox, or undefined when it may. Refused: the
 * whole file system, HERMES_HOME (and anything inside or holding it), a home directory (and
 * anything holding one: its shell start-up files and keys would become writable), a hidden
 * directory directly in a home (`~/.config`, `~/.local`…), the system and kernel directories and
 * the shared /tmp, and every place the shared table of sensitive locations protects.
 */
export function writableProblem(path: string, places: SandboxPlaces): string | undefined {
  for (const spelled of spellings(path)) {
    if (spelled === '/') return 'is the whole file system';
    if (isWithin(spelled, places.hermesHome) || isWithin(places.hermesHome, spelled)) {
      return `holds the gateway's own files (HERMES_HOME ${places.hermesHome}); commands never run there sandboxed — use a project directory outside it`;
    }
    for (const home of places.homes) {
      if (isWithin(home, spelled))
        return `is (or holds) the home directory ${home}, with its shell start-up files and keys`;
      if (isWithin(spelled, home) && spelled.slice(home.length + 1).startsWith('.')) {
        return `is a hidden configuration directory of the home ${home}`;
      }
    }
    if (NEVER_WRITABLE.some((dir) => isWithin(dir, spelled))) return 'holds system directories';
    if (NEVER_WRITABLE_BELOW.some((dir) => isWithin(spelled, dir))) return 'is a system directory';
    for (const home of places.homes) {
      const match = classifySensitivePath(spelled, { home, hermesHome: places.hermesHome });
      if (match !== undefined && match.write !== 'none') return `is ${match.what}`;
    }
  }
  return undefined;
}

export interface SandboxRoots {
  /** Read-write inside the sandbox: the session working directory and `terminal.sandbox.writable`. */
  readonly writable: readonly string[];
  /** Read-only inside the sandbox: `terminal.sandbox.readable`. */
  readonly readable: readonly string[];
}

/** The configured extra roots, checked; throws an `exec_failed` naming the first bad entry. */
export function configuredRoots(terminal: TerminalConfig, places: SandboxPlaces): SandboxRoots {
  const writable = terminal.sandbox.writable.map((p) => expandConfigPath(p, 'terminal.sandbox.writable'));
  const readable = terminal.sandbox.readable.map((p) => expandConfigPath(p, 'terminal.sandbox.readable'));
  for (const path of writable) {
    const problem = writableProblem(path, places);
    if (problem !== undefined) {
      throw new HermesError('exec_failed', `terminal.sandbox.writable: ${path} ${problem}`);
    }
  }
  for (const path of readable) {
    if (spellings(path).some((p) => isWithin(p, places.hermesHome))) {
      throw new HermesError(
        'exec_failed',
        `terminal.sandbox.readable: ${path} is inside HERMES_HOME (${places.hermesHome}), which is never visible in the sandbox`,
      );
    }
  }
  return { writable, readable };
}

/**
 * The roots of one command: the session working directory joins the configured writable paths.
 * A working directory that may not be writable is refused with the reason and the way out.
 */
export function commandRoots(
  terminal: TerminalConfig,
  places: SandboxPlaces,
  sessionCwd: string,
): SandboxRoots {
  const configured = configuredRoots(terminal, places);
  const cwd = resolve(sessionCwd);
  const problem = writableProblem(cwd, places);
  if (problem !== undefined) {
    throw new HermesError(
      'exec_failed',
      `sandbox: the working directory ${cwd} ${problem}. Set terminal.cwd (TERMINAL_CWD) to a project directory, or run this session with another terminal backend.`,
    );
  }
  return { writable: [cwd, ...configured.writable], readable: configured.readable };
}

/** The homes to hide for a command whose environment has `HOME=envHome`. */
export function homesToHide(envHome: string | undefined): string[] {
  const homes = new Set([resolve(homedir())]);
  if (envHome !== undefined && isAbsolute(envHome)) homes.add(resolve(envHome));
  return [...homes].filter((home) => home !== '/');
}
