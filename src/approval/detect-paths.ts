import { HERMES_HOME_ALIAS } from './normalize-command.js';
import {
  classifySensitivePath,
  collapsePath,
  type SensitiveMatch,
  type SensitiveRoots,
} from './sensitive-paths.js';

/**
 * Path classification used by the rules. Inputs are lower-cased words after home folding
 * (`~/…` for the user's home, `~/.hermes-gateway/…` for HERMES_HOME). Which locations are
 * sensitive comes from the one shared table in sensitive-paths.ts (the file tools use it too);
 * this file only adapts the detector's spelling to it (globs, `~user`, unresolved expansions).
 */

/** The table's roots in the detector's folded spelling. */
export const FOLDED_ROOTS: SensitiveRoots = { home: '~', hermesHome: HERMES_HOME_ALIAS };

export type DeleteTargetClass = 'root' | 'system' | 'home' | 'other';

/** Top-level directories whose recursive deletion is unrecoverable (hardline). */
const SYSTEM_DIRS = new Set([
  'home',
  'root',
  'etc',
  'usr',
  'var',
  'bin',
  'sbin',
  'boot',
  'lib',
  'lib32',
  'lib64',
  'libx32',
  'opt',
  'srv',
  'sys',
  'proc',
  'dev',
  'run',
  'snap',
  'mnt',
  'media',
  'system',
  'library',
  'applications',
  'users',
  'private',
  'volumes',
]);

const HARMLESS_DEVICES = new Set([
  '/dev/null',
  '/dev/zero',
  '/dev/full',
  '/dev/random',
  '/dev/urandom',
  '/dev/stdin',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/tty',
  '/dev/console',
  '/dev/ptmx',
  '/dev/log',
]);
const HARMLESS_DEVICE_DIRS = ['/dev/fd/', '/dev/pts/', '/dev/shm/', '/dev/mqueue/', '/dev/tcp/', '/dev/udp/'];

/** What deleting `path` recursively would take with it. */
export function classifyDeleteTarget(path: string): DeleteTargetClass {
  const p = path.toLowerCase();
  let home = false;
  let rest: string;
  if (p === '~' || p.startsWith('~/')) {
    home = true;
    rest = p.slice(1);
  } else if (p.startsWith('~')) {
    const slash = p.indexOf('/');
    if (slash < 0) return 'home';
    home = true;
    rest = p.slice(slash);
  } else if (p.startsWith('/')) {
    rest = p;
  } else {
    return 'other';
  }
  const segments: string[] = [];
  let escapes = 0;
  for (const part of rest.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (segments.length > 0) segments.pop();
      else if (home) escapes += 1;
      continue;
    }
    segments.push(part);
  }
  if (home && escapes > 0) return escapes > 1 ? 'root' : 'system';
  const first = segments[0];
  if (home) return first === undefined || (segments.length === 1 && isGlobAll(first)) ? 'home' : 'other';
  if (first === undefined || isGlobAll(first)) return 'root';
  if (/[*?[]/.test(first)) return globMatchesSystemDir(first) ? 'system' : 'other';
  const second = segments[1];
  if (segments.length === 1 || (segments.length === 2 && second !== undefined && isGlobAll(second))) {
    if (SYSTEM_DIRS.has(first)) return 'system';
  }
  return 'other';
}

/** `*`, `**`, `.*`, `*?`…: matches every entry of a directory. */
function isGlobAll(segment: string): boolean {
  const body = segment.startsWith('.') ? segment.slice(1) : segment;
  let star = false;
  for (const c of body) {
    if (c === '*') star = true;
    else if (c !== '?') return false;
  }
  return star;
}

/** Whether a shell glob (`e*`, `[a-z]*`, `?sr`) could name a top-level system directory. */
function globMatchesSystemDir(glob: string): boolean {
  let pattern = '^';
  for (let i = 0; i < glob.length && i < 64; i += 1) {
    const c = glob[i] as string;
    if (c === '*') pattern += '.*';
    else if (c === '?') pattern += '.';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) pattern += '\\[';
      else {
        const body = glob
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/[\\\]]/g, '\\$&');
        pattern += `[${body}]`;
        i = close;
      }
    } else pattern += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  let regex: RegExp;
  try {
    regex = new RegExp(`${pattern}$`);
  } catch {
    return true;
  }
  for (const dir of SYSTEM_DIRS) if (regex.test(dir)) return true;
  return false;
}

const GLOB = /[*?[]/;

/**
 * One path of each sensitive kind, in the folded spelling. A glob (`~/.ss?/id_rsa`, `/e?c/shadow`,
 * a star in place of a pid under /proc) is tested against them: whatever it could match, it is
 * treated as.
 */
const REPRESENTATIVES = [
  `${HERMES_HOME_ALIAS}/.env`,
  `${HERMES_HOME_ALIAS}/config.yaml`,
  `${HERMES_HOME_ALIAS}/state.db`,
  `${HERMES_HOME_ALIAS}/state.db-wal`,
  `${HERMES_HOME_ALIAS}/plugins/x.mjs`,
  HERMES_HOME_ALIAS,
  '~/.ssh/id_rsa',
  '~/.ssh/id_ed25519',
  '~/.ssh/id_ecdsa',
  '~/.ssh/authorized_keys',
  '~/.aws/credentials',
  '~/.kube/config',
  '~/.gnupg/private-keys-v1.d',
  '~/.netrc',
  '~/.git-credentials',
  '~/.docker/config.json',
  '~/.bashrc',
  '~/.zshrc',
  '~/.profile',
  '~/.config/systemd/user/x.service',
  '/proc/1/environ',
  '/proc/1/mem',
  '/proc/sysrq-trigger',
  '/etc/shadow',
  '/etc/passwd',
  '/etc/sudoers',
  '/dev/sda',
  '/dev/vda',
  '/dev/xvda',
  '/dev/nvme0n1',
];

const globCache = new Map<string, readonly SensitiveMatch[]>();

function globRegex(glob: string): RegExp | undefined {
  let pattern = '^';
  for (let i = 0; i < glob.length && i < 512; i += 1) {
    const c = glob[i] as string;
    if (c === '*') pattern += '.*';
    else if (c === '?') pattern += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) pattern += '\\[';
      else {
        const body = glob
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/[\\\]]/g, '\\$&');
        pattern += `[${body}]`;
        i = close;
      }
    } else pattern += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  try {
    return new RegExp(`${pattern}$`);
  } catch {
    return undefined;
  }
}

/** Everything sensitive a glob could name (fail closed: a broken glob could name anything). */
function globMatches(path: string): readonly SensitiveMatch[] {
  const cached = globCache.get(path);
  if (cached !== undefined) return cached;
  const regex = globRegex(path);
  const out: SensitiveMatch[] = [];
  for (const example of REPRESENTATIVES) {
    if (regex !== undefined && !regex.test(example)) continue;
    const match = classifySensitivePath(example, FOLDED_ROOTS);
    if (match !== undefined) out.push(match);
  }
  if (globCache.size > 256) globCache.clear();
  globCache.set(path, out);
  return out;
}

/** `~root/x` → `/root/x`, `~bob/x` → `/home/bob/x` (other accounts' homes). */
function expandUserHome(path: string): string {
  if (!path.startsWith('~') || path.startsWith('~/') || path === '~') return path;
  const slash = path.indexOf('/');
  const user = slash < 0 ? path.slice(1) : path.slice(1, slash);
  const rest = slash < 0 ? '' : path.slice(slash);
  if (user === '' || user === '+' || user === '-') return `~${rest}`;
  return user === 'root' ? `/root${rest}` : `/home/${user}${rest}`;
}

/**
 * Sensitive locations `path` (lower-cased, folded) may name. Usually none or one; a glob may
 * name several. Relative paths match only the `.git/hooks` / `.git/config` entries.
 */
export function sensitiveMatches(path: string): readonly SensitiveMatch[] {
  if (path === '') return [];
  const p = expandUserHome(path.startsWith('file://') ? path.slice(7) : path);
  if (GLOB.test(p)) return globMatches(p);
  const match = classifySensitivePath(p, FOLDED_ROOTS);
  return match === undefined ? [] : [match];
}

const belowCache = new Map<string, readonly SensitiveMatch[]>();

/** Sensitive locations strictly below directory `dir` (what `tar c`, `cp -r`, `grep -r` of it read). */
export function matchesBelow(dir: string): readonly SensitiveMatch[] {
  const collapsed = collapsePath(expandUserHome(dir));
  if (!collapsed.startsWith('/') && !collapsed.startsWith('~')) return [];
  const cached = belowCache.get(collapsed);
  if (cached !== undefined) return cached;
  const prefix = collapsed.endsWith('/') ? collapsed : `${collapsed}/`;
  const regex = GLOB.test(collapsed) ? globRegex(`${prefix}*`) : undefined;
  const out: SensitiveMatch[] = [];
  for (const example of REPRESENTATIVES) {
    if (regex !== undefined ? !regex.test(example) : !example.startsWith(prefix)) continue;
    const match = classifySensitivePath(example, FOLDED_ROOTS);
    if (match !== undefined) out.push(match);
  }
  if (belowCache.size > 256) belowCache.clear();
  belowCache.set(collapsed, out);
  return out;
}

/** The most severe match of one kind (`write` or `read`) among `matches`. */
export function worst(
  matches: readonly SensitiveMatch[],
  kind: 'write' | 'read',
): SensitiveMatch | undefined {
  let best: SensitiveMatch | undefined;
  for (const match of matches) {
    const tier = match[kind];
    if (tier === 'none') continue;
    if (best === undefined || (tier === 'hardline' && best[kind] !== 'hardline')) best = match;
  }
  return best;
}

function firstArea(path: string, areas: readonly string[]): boolean {
  return sensitiveMatches(path).some((match) => areas.includes(match.area));
}

export function isBlockDevice(path: string): boolean {
  return path.startsWith('/dev/') && firstArea(path, ['block_device']);
}

/** A device under /dev that is not a harmless sink or stream. */
export function isRiskyDevice(path: string): boolean {
  if (!path.startsWith('/dev/') || HARMLESS_DEVICES.has(path)) return false;
  return !HARMLESS_DEVICE_DIRS.some((dir) => path.startsWith(dir));
}

export function isSystemConfigPath(path: string): boolean {
  return path === '/etc' || path.startsWith('/etc/') || /^\/private\/(?:etc|var|tmp|home)(?:\/|$)/.test(path);
}

/** SSH keys and config, GnuPG, shell start-up files, credential files (the table's home areas). */
export function isSensitiveUserPath(path: string): boolean {
  return firstArea(path, ['ssh', 'gpg', 'shell_startup', 'credentials']);
}

/** The gateway's own config.yaml / .env / state (and Hermes Agent's config, for compatibility). */
export function isHermesConfigPath(path: string): boolean {
  const p = collapsePath(path);
  if (p === '~/.hermes/.env' || p === '~/.hermes/config.yaml') return true;
  return firstArea(path, ['hermes_secret']);
}

/** Anything under the gateway's HERMES_HOME, or the directory itself. */
export function isHermesHomePath(path: string): boolean {
  return firstArea(path, ['hermes_home', 'hermes_secret']);
}

/** Any `.env`, `.env.*` or `config.yaml` file (a glued `#` is part of the name). */
export function isProjectEnvOrConfig(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base === '.env' || base.startsWith('.env.') || base === 'config.yaml';
}

/** Where a write to `path` lands in the sensitive-file families. */
export function isSensitiveWriteTarget(path: string): boolean {
  return (
    isSystemConfigPath(path) || isBlockDevice(path) || isSensitiveUserPath(path) || isHermesConfigPath(path)
  );
}
