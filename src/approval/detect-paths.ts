/**
 * Path classification used by the rules. Inputs are lower-cased words after home folding
 * (`~/…` for the user's home, `~/.hermes-gateway/…` for HERMES_HOME).
 */

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

const BLOCK_DEVICE =
  /^\/dev\/(?:(?:s|h|v|xv)d[a-z]|nvme\d|mmcblk\d|md\d|md\/|dm-\d|loop\d|nbd\d|r?disk\d|mapper\/.|disk\/by-(?:id|uuid|path|label|partuuid|partlabel)\/.)/;

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

const SHELL_RC_FILES = new Set([
  '.bashrc',
  '.zshrc',
  '.profile',
  '.bash_profile',
  '.zprofile',
  '.bash_login',
  '.bash_logout',
  '.zshenv',
  '.zlogin',
  '.config/fish/config.fish',
]);

const CREDENTIAL_FILES = new Set([
  '.netrc',
  '.pgpass',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.aws/credentials',
  '.aws/config',
  '.docker/config.json',
  '.kube/config',
  '.config/gh/hosts.yml',
]);

const HERMES_FILES = new Set([
  '.hermes-gateway/.env',
  '.hermes-gateway/config.yaml',
  '.hermes/.env',
  '.hermes/config.yaml',
]);

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

export function isBlockDevice(path: string): boolean {
  return path.startsWith('/dev/') && BLOCK_DEVICE.test(path);
}

/** A device under /dev that is not a harmless sink or stream. */
export function isRiskyDevice(path: string): boolean {
  if (!path.startsWith('/dev/') || HARMLESS_DEVICES.has(path)) return false;
  return !HARMLESS_DEVICE_DIRS.some((dir) => path.startsWith(dir));
}

export function isSystemConfigPath(path: string): boolean {
  return path === '/etc' || path.startsWith('/etc/') || /^\/private\/(?:etc|var|tmp|home)(?:\/|$)/.test(path);
}

/** The part of `path` below a home directory (`~/x`, `/root/x`, `/home/u/x`), if it is under one. */
export function homeRelative(path: string): string | undefined {
  let rel: string | undefined;
  if (path === '~' || path === '/root') rel = '';
  else if (path.startsWith('~/')) rel = path.slice(2);
  else if (path.startsWith('/root/')) rel = path.slice(6);
  else {
    const match = /^\/(?:home|users)\/[^/]+(?:\/(.*))?$/.exec(path);
    if (match === null) return undefined;
    rel = match[1] ?? '';
  }
  if (!rel.includes('//') && !rel.includes('./')) return rel;
  return rel
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');
}

/** SSH keys and config, shell start-up files, credential files. */
export function isSensitiveUserPath(path: string): boolean {
  const rel = homeRelative(path);
  if (rel === undefined) return false;
  if (rel === '.ssh' || rel.startsWith('.ssh/') || rel === '.gnupg' || rel.startsWith('.gnupg/')) return true;
  return SHELL_RC_FILES.has(rel) || CREDENTIAL_FILES.has(rel);
}

/** The gateway's own config.yaml / .env (and Hermes Agent's, for compatibility). */
export function isHermesConfigPath(path: string): boolean {
  const rel = homeRelative(path);
  return rel !== undefined && (HERMES_FILES.has(rel) || rel.startsWith('.hermes-gateway/.env.'));
}

/** Anything under the gateway's HERMES_HOME, or the directory itself. */
export function isHermesHomePath(path: string): boolean {
  const rel = homeRelative(path);
  return rel !== undefined && (rel === '.hermes-gateway' || rel.startsWith('.hermes-gateway/'));
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
