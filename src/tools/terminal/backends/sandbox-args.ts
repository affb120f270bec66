import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  classifySensitivePath,
  sensitiveHomeDirs,
  sensitiveHomeFiles,
} from '../../../approval/sensitive-paths.js';
import type { TerminalConfig } from './backend-types.js';
import { isWithin, type SandboxPlaces, type SandboxRoots, SYSTEM_DIRS } from './sandbox-layout.js';

/** Namespace flags, strongest first: no nested user namespaces where bwrap can forbid them. */
export const NAMESPACE_FLAGS: readonly (readonly string[])[] = [
  ['--unshare-all', '--unshare-user', '--disable-userns'],
  ['--unshare-all'],
];

export interface BwrapInput {
  readonly places: SandboxPlaces;
  /** One of NAMESPACE_FLAGS (the strongest the probe found working); the first by default. */
  readonly namespaces?: readonly string[];
  /** `systemLayer(places)`, computed once and reused (it reads /etc); computed here when absent. */
  readonly system?: readonly string[];
  readonly roots: SandboxRoots;
  readonly network: boolean;
  /** Directory the command starts in (a path as seen inside). */
  readonly chdir: string;
  /** Program and arguments run inside (already wrapped in prlimit when limits apply). */
  readonly command: readonly string[];
}

function kind(path: string): 'dir' | 'file' | 'link' | undefined {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return 'link';
    if (stat.isDirectory()) return 'dir';
    return stat.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}

/** Covers a path that exists: an empty tmpfs over a directory, /dev/null over a file. */
function hide(path: string): string[] {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    return [];
  }
  if (stat.isDirectory()) return ['--tmpfs', path];
  return stat.isFile() ? ['--ro-bind', '/dev/null', path] : [];
}

/** The system, read-only: real directories bound, merged-/usr links recreated as links. */
function systemArgs(): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    const type = kind(dir);
    if (type === 'link') args.push('--symlink', readlinkSync(dir), dir);
    else if (type === 'dir') args.push('--ro-bind', dir, dir);
  }
  // /etc/resolv.conf often points into /run (systemd-resolved), which is not shown: bind its target.
  try {
    const target = realpathSync('/etc/resolv.conf');
    if (!SYSTEM_DIRS.some((dir) => isWithin(target, dir))) args.push('--ro-bind', target, target);
  } catch {
    // No resolver configuration: nothing to show.
  }
  return args;
}

/**
 * Private keys and credentials kept under /etc that the shared table does not list (it is about
 * what commands may touch; these are only readable by root anyway): covered too, for a gateway
 * that runs as root.
 */
const ETC_PRIVATE: readonly string[] = [
  '/etc/ssl/private',
  '/etc/letsencrypt',
  '/etc/wireguard',
  '/etc/NetworkManager/system-connections',
  '/etc/ipsec.secrets',
  '/etc/ipsec.d/private',
  '/etc/krb5.keytab',
  '/etc/openvpn',
];

/** SSH host keys: `/etc/ssh/ssh_host_*_key` (the `.pub` halves stay). */
function sshHostKeys(): string[] {
  try {
    return readdirSync('/etc/ssh')
      .filter((name) => /^ssh_host_.*_key$/.test(name))
      .map((name) => join('/etc/ssh', name));
  } catch {
    return [];
  }
}

/** Files of /etc whose content is secret (the shared table's, private key stores): covered. */
function etcSecrets(places: SandboxPlaces): string[] {
  const args: string[] = [];
  for (const path of [...ETC_PRIVATE, ...sshHostKeys()]) args.push(...hide(path));
  const roots = { home: places.homes[0] ?? '/root', hermesHome: places.hermesHome };
  for (const dir of ['/etc', '/etc/sudoers.d']) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (classifySensitivePath(path, roots)?.read === 'dangerous') args.push(...hide(path));
    }
  }
  return args;
}

/** Sensitive places below a home that a bound root brings back into view: covered again. */
function rehide(places: SandboxPlaces, bound: readonly string[]): string[] {
  const args: string[] = [];
  const exposed = (path: string) => bound.some((root) => path !== root && isWithin(path, root));
  for (const home of places.homes) {
    for (const rel of [...sensitiveHomeDirs(), ...sensitiveHomeFiles()]) {
      const path = join(home, rel);
      if (exposed(path)) args.push(...hide(path));
    }
  }
  if (existsSync(places.hermesHome)) args.push('--tmpfs', places.hermesHome);
  return args;
}

/** A repository's hooks and config in a writable root stay read-only (they run outside later). */
function gitControl(writable: readonly string[]): string[] {
  const args: string[] = [];
  for (const root of writable) {
    for (const rel of ['.git/hooks', '.git/config']) {
      const path = join(root, rel);
      if (kind(path) === 'dir' || kind(path) === 'file') args.push('--ro-bind', path, path);
    }
  }
  return args;
}

/**
 * The part of the command line that depends only on the machine: the system read-only with its
 * secret files covered, `/proc`, `/dev`, the private `/tmp`. Worth computing once: it classifies
 * every entry of /etc against the shared table.
 */
export function systemLayer(places: SandboxPlaces): string[] {
  const args = [...systemArgs(), ...etcSecrets(places)];
  args.push('--proc', '/proc', '--ro-bind-try', '/proc/sys', '/proc/sys', '--dev', '/dev');
  args.push('--tmpfs', '/tmp', '--tmpfs', '/var/tmp');
  return args;
}

/**
 * The bubblewrap command line: own user, PID, IPC, UTS and cgroup namespaces (and network unless
 * allowed; no further user namespaces inside where supported), every capability dropped, dies with the gateway, new session; the system read-only,
 * a private /tmp, a minimal /dev, a fresh /proc, every home directory and HERMES_HOME hidden,
 * then the readable roots (read-only) and the writable roots bound back, parents first, and the
 * sensitive places inside them covered again.
 */
export function bwrapArgs(input: BwrapInput): string[] {
  const { places, roots } = input;
  const args = [...(input.namespaces ?? (NAMESPACE_FLAGS[0] as readonly string[]))];
  if (input.network) args.push('--share-net');
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL');
  args.push(...(input.system ?? systemLayer(places)));
  for (const home of [...places.homes].sort((a, b) => a.length - b.length)) args.push('--tmpfs', home);
  const binds = [
    ...roots.readable.map((path) => ({ path, flag: '--ro-bind-try' })),
    ...roots.writable.map((path) => ({ path, flag: '--bind-try' })),
  ].sort((a, b) => a.path.split('/').length - b.path.split('/').length);
  for (const bind of binds) args.push(bind.flag, bind.path, bind.path);
  args.push(...rehide(places, [...roots.readable, ...roots.writable]), ...gitControl(roots.writable));
  args.push('--chdir', input.chdir, '--', ...input.command);
  return args;
}

/**
 * The configured limits as a first line for bash (its `ulimit` builtin sets the soft and the hard
 * limit, so the command cannot raise them again), or '' when none is configured. Cheaper than a
 * `prlimit` process per command; a shell that is not bash gets `limitArgs` instead.
 */
export function ulimitPrelude(sandbox: TerminalConfig['sandbox']): string {
  const limits: string[] = [];
  // bash's units: seconds for -t, KiB for -d and -f (outside POSIX mode), a count for -u.
  if (sandbox.cpu_seconds > 0) limits.push(`-t ${sandbox.cpu_seconds}`);
  if (sandbox.memory_mb > 0) limits.push(`-d ${sandbox.memory_mb * 1024}`);
  if (sandbox.processes > 0) limits.push(`-u ${sandbox.processes}`);
  if (sandbox.file_size_mb > 0) limits.push(`-f ${sandbox.file_size_mb * 1024}`);
  return limits.length === 0 ? '' : `ulimit ${limits.join(' ')} || exit 126\n`;
}

/** `prlimit --cpu=… --data=… --nproc=… --fsize=… --` for the configured limits (none: no wrapper). */
export function limitArgs(sandbox: TerminalConfig['sandbox'], prlimit: string): string[] {
  const mb = 1024 * 1024;
  const limits: string[] = [];
  if (sandbox.cpu_seconds > 0) limits.push(`--cpu=${sandbox.cpu_seconds}`);
  if (sandbox.memory_mb > 0) limits.push(`--data=${sandbox.memory_mb * mb}`);
  if (sandbox.processes > 0) limits.push(`--nproc=${sandbox.processes}`);
  if (sandbox.file_size_mb > 0) limits.push(`--fsize=${sandbox.file_size_mb * mb}`);
  return limits.length === 0 ? [] : [prlimit, ...limits, '--'];
}
