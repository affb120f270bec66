/**
 * The one table of sensitive locations, shared by the command detector and the file tools.
 *
 * Paths are compared case-insensitively (a false match on a case-sensitive file system only
 * asks more often; a missed one would let a write through). Callers pass paths that are
 * already absolute and resolved as far as they can be: the file tools give real paths (links
 * followed), the detector gives its folded spelling (`~/…`, `~/.hermes-gateway/…`) together
 * with roots spelled the same way.
 */

/** Which family a location belongs to; stable names used in messages and tests. */
export type SensitiveArea =
  | 'hermes_home'
  | 'hermes_secret'
  | 'shell_startup'
  | 'ssh'
  | 'credentials'
  | 'gpg'
  | 'systemd_user'
  | 'autostart'
  | 'cron'
  | 'git_hooks'
  | 'git_config'
  | 'system_config'
  | 'system_binaries'
  | 'process_secrets'
  | 'kernel_control'
  | 'block_device';

/** What touching the location costs: never allowed, ask a human, or nothing special. */
export type SensitiveTier = 'hardline' | 'dangerous' | 'none';

export interface SensitiveMatch {
  readonly area: SensitiveArea;
  /** Short human text: "the gateway's secrets file ($HERMES_HOME/.env)". */
  readonly what: string;
  /** Writing, moving, linking, truncating, deleting or copying over it. */
  readonly write: SensitiveTier;
  /** Reading its content (into the model's context or out of the machine). */
  readonly read: SensitiveTier;
}

export interface SensitiveRoots {
  /** The user's home, absolute (or `~` in the detector's folded spelling). */
  readonly home: string;
  /** HERMES_HOME, absolute (or `~/.hermes-gateway` folded). */
  readonly hermesHome: string;
}

/** Files of HERMES_HOME whose content is secret: tokens, keys, route secrets, every transcript. */
function hermesSecretName(rel: string): boolean {
  const first = rel.split('/')[0] ?? '';
  return (
    first === '.env' ||
    first.startsWith('.env.') ||
    first === 'config.yaml' ||
    first === 'config.yml' ||
    first.startsWith('state.db') ||
    first.endsWith('.db') ||
    first.endsWith('.db-wal') ||
    first.endsWith('.db-shm') ||
    first.endsWith('.sqlite') ||
    first.endsWith('.key') ||
    first.endsWith('.pem')
  );
}

/** Shell and session start-up files: whatever they hold runs at the user's next login or shell. */
const SHELL_STARTUP = new Set([
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.kshrc',
  '.mkshrc',
  '.cshrc',
  '.tcshrc',
  '.login',
  '.logout',
  '.xprofile',
  '.xinitrc',
  '.xsession',
  '.xsessionrc',
  '.pam_environment',
  '.inputrc',
  '.config/fish/config.fish',
]);
const SHELL_STARTUP_DIRS = [
  '.config/fish/conf.d',
  '.config/fish/functions',
  '.oh-my-zsh/custom',
  '.bashrc.d',
];

/** Credential files and directories below the home (content is secret, writes redirect trust). */
const CREDENTIAL_FILES = new Set([
  '.netrc',
  '.pgpass',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.git-credentials',
  '.my.cnf',
  '.vault-token',
  '.docker/config.json',
  '.config/gh/hosts.yml',
  '.config/hub',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.terraform.d/credentials.tfrc.json',
  '.terraformrc',
  '.s3cfg',
  '.boto',
  '.config/git/credentials',
  '.config/rclone/rclone.conf',
  '.hermes/.env',
  '.hermes/config.yaml',
]);
const CREDENTIAL_DIRS = [
  '.aws',
  '.kube',
  '.azure',
  '.config/gcloud',
  '.config/doctl',
  '.oci',
  '.password-store',
  '.local/share/keyrings',
  '.mozilla/firefox',
  '.config/google-chrome',
  '.config/chromium',
];

/** Files in ~/.ssh that are public by nature; reading them is everyday work. */
function publicSshFile(rel: string): boolean {
  const name = rel.slice('.ssh/'.length);
  return name.endsWith('.pub') || name === 'known_hosts' || name === 'known_hosts.old' || name === 'config';
}

const SYSTEM_SECRET_FILES = new Set([
  '/etc/shadow',
  '/etc/gshadow',
  '/etc/shadow-',
  '/etc/gshadow-',
  '/etc/sudoers',
]);
const SYSTEM_BINARY_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/boot', '/opt'];
const CRON_DIRS = ['/var/spool/cron', '/var/spool/at', '/var/spool/anacron', '/etc/cron.d'];

const BLOCK_DEVICE =
  /^\/dev\/(?:(?:s|h|v|xv)d[a-z]|nvme\d|mmcblk\d|md\d|md\/|dm-\d|loop\d|nbd\d|r?disk\d|sr\d|mapper\/.|disk\/by-[a-z]+\/.)/;
const PROC_SECRET = /^\/proc\/(?:[^/]+\/)*(?:environ|mem|auxv)$/;
/** Another process's open files, mappings and working directory (`self` is the command's own). */
const PROC_HANDLES = /^\/proc\/(?!self\/|thread-self\/)[^/]+\/(?:task\/[^/]+\/)?(?:fd|map_files|cwd)\/./;
/** `/proc/<pid>/root/…` is the file system as that process sees it. */
const PROC_ROOT = /^\/proc\/[^/]+\/root(?=\/|$)/;
/** The homes of other accounts: `/root`, `/home/<user>`, `/Users/<user>`. */
const OTHER_HOME = /^(?:\/root|\/home\/[^/]+|\/users\/[^/]+)(?=\/|$)/;

const lower = (path: string): string => path.toLowerCase();

/** Anything `collapsePath` would change: `//`, `/./`, `/../`, a leading `./` or `../`, a trailing `/`. */
const NEEDS_COLLAPSE = /\/\/|\/\.\.?(?:\/|$)|^\.\.?(?:\/|$)|.\/$/;

/** Collapses `.`, `..` and doubled slashes of an absolute (or `~`-rooted) path, without touching the disk. */
export function collapsePath(path: string): string {
  if (!NEEDS_COLLAPSE.test(path)) return path;
  const rooted = path.startsWith('/') ? '/' : '';
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length > 0 && !(rooted === '' && parts.length === 1 && parts[0] === '~')) parts.pop();
      continue;
    }
    parts.push(part);
  }
  return rooted + parts.join('/');
}

/** `child` relative to `dir` when it is `dir` itself ('') or below it; undefined otherwise. */
export function relativeInside(child: string, dir: string): string | undefined {
  return insideCollapsed(lower(collapsePath(child)), lower(collapsePath(dir)));
}

/** `relativeInside` for paths already collapsed and lower-cased. */
function insideCollapsed(c: string, d: string): string | undefined {
  if (d === '') return undefined;
  if (c === d) return '';
  const prefix = d.endsWith('/') ? d : `${d}/`;
  return c.startsWith(prefix) ? c.slice(prefix.length) : undefined;
}

function underAny(rel: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => rel === dir || rel.startsWith(`${dir}/`));
}

/** The `.git/hooks` or `.git/config` of any repository, wherever it lives. */
function gitControlArea(path: string): SensitiveMatch | undefined {
  const p = lower(path);
  const at = p.startsWith('.git/') ? 0 : p.lastIndexOf('/.git/') + 1;
  if (at === 0 && !p.startsWith('.git/')) return undefined;
  const rest = p.slice(at + '.git/'.length);
  if (rest === 'hooks' || rest.startsWith('hooks/')) {
    return {
      area: 'git_hooks',
      what: 'a git hook (runs on the next git command)',
      write: 'dangerous',
      read: 'none',
    };
  }
  if (rest === 'config') {
    return {
      area: 'git_config',
      what: 'a repository’s git config (can set hooks, pagers and command aliases)',
      write: 'dangerous',
      read: 'none',
    };
  }
  return undefined;
}

function homeArea(rel: string): SensitiveMatch | undefined {
  if (SHELL_STARTUP.has(rel) || underAny(rel, SHELL_STARTUP_DIRS)) {
    return { area: 'shell_startup', what: 'a shell start-up file', write: 'dangerous', read: 'none' };
  }
  if (rel === '.ssh' || rel.startsWith('.ssh/')) {
    return {
      area: 'ssh',
      what: 'SSH keys and configuration (~/.ssh)',
      write: 'dangerous',
      read: rel === '.ssh' || publicSshFile(rel) ? 'none' : 'dangerous',
    };
  }
  if (rel === '.gnupg' || rel.startsWith('.gnupg/')) {
    return { area: 'gpg', what: 'GnuPG keys (~/.gnupg)', write: 'dangerous', read: 'dangerous' };
  }
  if (CREDENTIAL_FILES.has(rel) || underAny(rel, CREDENTIAL_DIRS)) {
    return { area: 'credentials', what: 'a credentials file', write: 'dangerous', read: 'dangerous' };
  }
  if (rel === '.gitconfig' || rel === '.config/git/config') {
    return {
      area: 'git_config',
      what: 'the global git config (can set hooks, pagers and command aliases)',
      write: 'dangerous',
      read: 'none',
    };
  }
  if (underAny(rel, ['.config/systemd', '.local/share/systemd'])) {
    return { area: 'systemd_user', what: 'a systemd user unit', write: 'dangerous', read: 'none' };
  }
  if (
    underAny(rel, ['.config/autostart', '.config/environment.d', 'library/launchagents', '.config/upstart'])
  ) {
    return { area: 'autostart', what: 'an autostart location', write: 'dangerous', read: 'none' };
  }
  return undefined;
}

/** First path components under which the system table has entries. */
const SYSTEM_TOPS = new Set([
  'dev',
  'proc',
  'sys',
  'etc',
  'var',
  'usr',
  'bin',
  'sbin',
  'lib',
  'lib32',
  'lib64',
  'libx32',
  'boot',
  'opt',
  'library',
  'private',
]);

function systemArea(p: string): SensitiveMatch | undefined {
  const slash = p.indexOf('/', 1);
  if (!SYSTEM_TOPS.has(slash < 0 ? p.slice(1) : p.slice(1, slash))) return undefined;
  if (BLOCK_DEVICE.test(p)) {
    return { area: 'block_device', what: 'a raw block device', write: 'hardline', read: 'dangerous' };
  }
  if (PROC_SECRET.test(p) || PROC_HANDLES.test(p)) {
    return {
      area: 'process_secrets',
      what: 'a process’s environment or memory (holds the gateway’s tokens)',
      write: 'hardline',
      read: 'dangerous',
    };
  }
  if (p === '/proc/sysrq-trigger') {
    return {
      area: 'kernel_control',
      what: 'the kernel’s SysRq trigger (reboots, crashes or powers off at once)',
      write: 'hardline',
      read: 'none',
    };
  }
  if (underAny(p, ['/proc/sys', '/sys'])) {
    return { area: 'kernel_control', what: 'kernel and device settings', write: 'dangerous', read: 'none' };
  }
  if (underAny(p, CRON_DIRS) || p === '/etc/crontab' || /^\/etc\/cron\.[a-z]+(?:\/|$)/.test(p)) {
    return { area: 'cron', what: 'a cron or at schedule', write: 'dangerous', read: 'none' };
  }
  if (p === '/etc' || p.startsWith('/etc/') || /^\/private\/(?:etc|var)(?:\/|$)/.test(p)) {
    return {
      area: 'system_config',
      what: 'system configuration (/etc)',
      write: 'dangerous',
      read: SYSTEM_SECRET_FILES.has(p) || p.startsWith('/etc/sudoers.d/') ? 'dangerous' : 'none',
    };
  }
  if (underAny(p, SYSTEM_BINARY_DIRS) || underAny(p, ['/library/launchdaemons', '/library/launchagents'])) {
    return {
      area: 'system_binaries',
      what: 'system programs and libraries',
      write: 'dangerous',
      read: 'none',
    };
  }
  return undefined;
}

const rootsCache = new WeakMap<SensitiveRoots, { home: string; hermesHome: string }>();

/** The roots collapsed and lower-cased once per roots object. */
function collapsedRoots(roots: SensitiveRoots): { home: string; hermesHome: string } {
  let cached = rootsCache.get(roots);
  if (cached === undefined) {
    cached = { home: lower(collapsePath(roots.home)), hermesHome: lower(collapsePath(roots.hermesHome)) };
    rootsCache.set(roots, cached);
  }
  return cached;
}

/**
 * Where `path` falls in the sensitive-location table, or undefined when it is nowhere special.
 * `path` must be absolute (or `~`-rooted in the detector's spelling); relative paths are never
 * matched except by the `.git/hooks` and `.git/config` rules, which apply to any repository.
 */
export function classifySensitivePath(path: string, roots: SensitiveRoots): SensitiveMatch | undefined {
  let p = lower(collapsePath(path));
  const procRoot = PROC_ROOT.exec(p);
  if (procRoot !== null) p = p.slice(procRoot[0].length) || '/';
  const { home, hermesHome } = collapsedRoots(roots);
  const hermesRel = insideCollapsed(p, hermesHome);
  if (hermesRel !== undefined) {
    if (hermesSecretName(hermesRel)) {
      return {
        area: 'hermes_secret',
        what: 'the gateway’s own secrets or state ($HERMES_HOME)',
        write: 'hardline',
        read: 'dangerous',
      };
    }
    return {
      area: 'hermes_home',
      what: 'the gateway’s own home ($HERMES_HOME)',
      write: 'hardline',
      read: 'none',
    };
  }
  const git = gitControlArea(p);
  if (git !== undefined) return git;
  const homeRel = insideCollapsed(p, home);
  if (homeRel !== undefined && homeRel !== '') {
    const area = homeArea(homeRel);
    if (area !== undefined) return area;
  }
  const other = homeRel === undefined ? OTHER_HOME.exec(p) : null;
  if (other !== null && p.length > other[0].length + 1) {
    const area = homeArea(p.slice(other[0].length + 1));
    if (area !== undefined) return area;
  }
  if (p.startsWith('/')) return systemArea(p);
  return undefined;
}

/** Every location of the table that is a directory tree, for sandboxes and scanners to hide. */
export function sensitiveHomeDirs(): readonly string[] {
  return ['.ssh', '.gnupg', ...CREDENTIAL_DIRS, '.config/systemd', '.config/autostart'];
}

/** Every single credential file below the home, for sandboxes and scanners to hide. */
export function sensitiveHomeFiles(): readonly string[] {
  return [...CREDENTIAL_FILES];
}
