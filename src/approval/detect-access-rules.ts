import type { RuleContext } from './detect-context.js';
import { DANGEROUS, HARDLINE } from './detect-keys.js';
import { type PathUse, pathUses, type UsedPath } from './detect-path-uses.js';
import { FOLDED_ROOTS, matchesBelow, sensitiveMatches } from './detect-paths.js';
import { HERMES_HOME_ALIAS } from './normalize-command.js';
import { classifySensitivePath, collapsePath, type SensitiveMatch } from './sensitive-paths.js';
import type { Segment } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * Sensitive locations read or written by a command, judged through the shared table
 * (sensitive-paths.ts): anything that writes, moves, links or opens HERMES_HOME as a database
 * is hardline; reading the gateway's secrets, process environments or private keys is
 * dangerous; writes to the other sensitive areas are dangerous.
 */

/** What earlier commands of the same list established (`cd X &&`, `H=$HERMES_HOME;`). */
export interface AccessEnv {
  /** Working directory set earlier in the command, folded and lower-cased. */
  readonly cwd: string | undefined;
  /** Variables bound earlier to a path inside HERMES_HOME (or the directory itself). */
  readonly hermesVars: ReadonlySet<string>;
}

export const EMPTY_ENV: AccessEnv = { cwd: undefined, hermesVars: new Set() };

/** Home directories named by a relative path when the working directory is the home (the usual case). */
const HOME_DOT_DIRS = ['.hermes-gateway/', '.ssh/', '.aws/', '.kube/', '.gnupg/', '.docker/', '.azure/'];

export interface Resolved {
  /** The path as compared (cwd joined, variables and spellings resolved). */
  readonly path: string;
  readonly matches: readonly SensitiveMatch[];
  /** The path is HERMES_HOME itself (a tree that holds every secret of the gateway). */
  readonly hermesDir: boolean;
}

const NONE: Resolved = { path: '', matches: [], hermesDir: false };

function isHermes(match: SensitiveMatch): boolean {
  return match.area === 'hermes_home' || match.area === 'hermes_secret';
}

/** Drops `$(…)`, `${…}` and backtick parts, which may hold spaces without the path holding any. */
function withoutExpansions(text: string): string {
  return text.replace(/\$\([^)]*\)|\$\{[^}]*\}|`[^`]*`/g, '$');
}

/** Where a HERMES_HOME reference the fold missed (`${HERMES_HOME%/}`, `$(printenv HERMES_HOME)`) ends. */
function hermesMentionEnd(text: string): number {
  for (const needle of ['${hermes_home', '$hermes_home', 'printenv hermes_home', 'getenv hermes_home']) {
    const at = text.indexOf(needle);
    if (at >= 0) return at + needle.length;
  }
  const at = text.indexOf('.hermes-gateway');
  if (at < 0) return -1;
  const before = at === 0 ? '/' : text[at - 1];
  const after = text[at + '.hermes-gateway'.length];
  if (
    (before === '/' || before === '~' || before === '(' || before === ' ' || before === '"') &&
    (after === undefined || after === '/' || after === ')' || after === '"' || after === '}')
  )
    return at + '.hermes-gateway'.length;
  return -1;
}

function joinPath(dir: string, rel: string): string {
  return dir.endsWith('/') ? `${dir}${rel}` : `${dir}/${rel}`;
}

/** Resolves one path the way the rules compare it: cwd, HERMES variables, spellings the fold missed. */
export function resolvePath(
  raw: string,
  word: ShellWord | undefined,
  env: AccessEnv,
  base: string | undefined,
): Resolved {
  if (raw.length > 4096) return NONE;
  let text = raw;
  const bare = text.includes('$') || text.includes('`') ? withoutExpansions(text) : text;
  if (/\s/.test(bare)) return NONE;
  if (text.startsWith('file://')) text = text.slice(7);
  if (env.hermesVars.size > 0 && text.startsWith('$')) {
    const name = /^\$\{?([a-z_][a-z0-9_]*)\}?/.exec(text);
    if (name !== null && env.hermesVars.has(name[1] as string))
      text = HERMES_HOME_ALIAS + text.slice(name[0].length);
  }
  const relative = !text.startsWith('/') && !text.startsWith('~') && !text.startsWith('$');
  const dir = base ?? env.cwd;
  if (relative && dir !== undefined) text = joinPath(dir, text);
  else if (relative && HOME_DOT_DIRS.some((d) => text.startsWith(d) || `${text}/` === d)) text = `~/${text}`;
  let matches = sensitiveMatches(text);
  let hermesDir = collapsePath(text) === HERMES_HOME_ALIAS;
  if (!matches.some(isHermes)) {
    const end = hermesMentionEnd(text);
    if (end >= 0) {
      const slash = text.indexOf('/', end);
      const tail = slash < 0 ? '' : text.slice(slash);
      const match = classifySensitivePath(HERMES_HOME_ALIAS + tail, FOLDED_ROOTS);
      if (match !== undefined) matches = [...matches, match];
      if (collapsePath(tail) === '' || collapsePath(tail) === '/') hermesDir = true;
    } else if (word?.dynamic === true || text.startsWith('$')) {
      const name = text.slice(text.lastIndexOf('/') + 1);
      if (name.startsWith('state.db')) {
        const match = classifySensitivePath(`${HERMES_HOME_ALIAS}/${name}`, FOLDED_ROOTS);
        if (match !== undefined) matches = [...matches, match];
      }
    }
  }
  return { path: text, matches, hermesDir };
}

/** Names of the gateway's own files, reached through a directory the detector cannot resolve. */
const GATEWAY_FILE_NAMES = /^(?:\.env(?:\..+)?|config\.ya?ml)$/;

/**
 * `sed -i … "$DIR/config.yaml"`, `cp x "${!v}/.env"`: the directory is an expansion or a
 * substitution whose value is unknown, so the file may be HERMES_HOME's own (`$PWD` is not).
 */
function mayBeGatewayFile(path: string): boolean {
  if (!(path.startsWith('$') || path.startsWith('`'))) return false;
  if (/^(?:\$\{?pwd\}?|\$\(pwd\)|`pwd`)(?:\/|$)/.test(path)) return false;
  const slash = path.lastIndexOf('/');
  return slash > 0 && GATEWAY_FILE_NAMES.test(path.slice(slash + 1));
}

/** A word worth resolving at all: most words (`-la`, `main`, `build`) are skipped at once. */
function pathLike(text: string, env: AccessEnv): boolean {
  if (env.cwd !== undefined) return true;
  return (
    text.includes('/') ||
    text.startsWith('~') ||
    text.includes('hermes') ||
    text.includes('state.db') ||
    (env.hermesVars.size > 0 && text.includes('$'))
  );
}

const KEYED_AREAS = new Set(['ssh', 'gpg', 'shell_startup', 'credentials', 'system_config']);

function writeKey(match: SensitiveMatch, path: string): string | undefined {
  switch (match.area) {
    case 'ssh':
    case 'gpg':
    case 'shell_startup':
    case 'credentials':
      return DANGEROUS.sensitiveWrite;
    case 'system_config':
      return DANGEROUS.systemConfig;
    case 'cron':
    case 'systemd_user':
    case 'autostart':
      return DANGEROUS.persistenceWrite;
    case 'git_hooks':
    case 'git_config':
      return DANGEROUS.gitHooksWrite;
    case 'system_binaries':
      // Installing into /usr/local or /opt is everyday work; replacing the system's own is not.
      return /^\/(?:usr\/local|opt)(?:\/|$)/.test(path) ? undefined : DANGEROUS.systemBinaryWrite;
    case 'kernel_control':
      return DANGEROUS.kernelWrite;
    default:
      return undefined;
  }
}

function readKey(match: SensitiveMatch): string {
  switch (match.area) {
    case 'hermes_secret':
    case 'hermes_home':
      return DANGEROUS.hermesSecretRead;
    case 'process_secrets':
      return DANGEROUS.procSecretRead;
    case 'block_device':
      return DANGEROUS.deviceRead;
    default:
      return DANGEROUS.secretRead;
  }
}

function hermesFinding(ctx: RuleContext, use: PathUse, secret: boolean, recursiveDir: boolean): void {
  switch (use) {
    case 'db':
      ctx.hardline(HARDLINE.hermesDb);
      return;
    case 'unknown':
      ctx.hardline(HARDLINE.hermesUnknown);
      return;
    case 'read':
      if (secret || recursiveDir) ctx.danger(DANGEROUS.hermesSecretRead);
      return;
    default:
      ctx.hardline(HARDLINE.hermesWrite);
  }
}

function hardlineWrite(ctx: RuleContext, match: SensitiveMatch, fromRedirect: boolean): void {
  if (match.area === 'block_device') {
    if (!fromRedirect) ctx.hardline(HARDLINE.deviceCopy);
  } else if (match.area === 'process_secrets') ctx.hardline(HARDLINE.procWrite);
  else if (match.area === 'kernel_control') ctx.hardline(HARDLINE.sysrq);
}

/** Directories too broad for "it holds secrets" to mean anything (`grep -r x ~`, `du /`). */
const BROAD_DIRS = new Set(['~', '/', '/home', '/root', '/users', '/etc', '/proc', '/dev', '/var', '/usr']);

/** A whole tree read recursively: the secrets below it count as read (`tar c ~/.ssh`, `cp -r ~/.aws`). */
export function secretsBelow(resolved: Resolved): readonly SensitiveMatch[] {
  const dir = collapsePath(resolved.path);
  if (dir === '' || BROAD_DIRS.has(dir)) return [];
  return matchesBelow(dir).filter((match) => match.read === 'dangerous' && match.area !== 'block_device');
}

function judge(ctx: RuleContext, used: UsedPath, resolved: Resolved, unknownProgram: boolean): void {
  const { use } = used;
  if (used.recursive && (use === 'read' || use === 'link') && !resolved.hermesDir) {
    const below = secretsBelow(resolved)[0];
    if (below !== undefined) ctx.danger(readKey(below));
  }
  for (const match of resolved.matches) {
    if (isHermes(match)) {
      hermesFinding(ctx, use, match.area === 'hermes_secret', resolved.hermesDir && used.recursive);
      continue;
    }
    if (use === 'write') {
      if (match.write === 'hardline')
        hardlineWrite(ctx, match, used.word !== undefined && isRedirectWord(ctx.seg, used.word));
      else if (
        match.write === 'dangerous' &&
        !(used.keyed && resolved.path === used.path && KEYED_AREAS.has(match.area))
      ) {
        const key = writeKey(match, used.path);
        if (key !== undefined) ctx.danger(key);
      }
      continue;
    }
    if (use === 'attr') continue;
    // Devices and kernel files named by programs we do not know are usually inspected, not dumped.
    if (match.area === 'block_device' && unknownProgram) continue;
    if (match.read === 'dangerous') ctx.danger(readKey(match));
  }
}

function isRedirectWord(seg: Segment, word: ShellWord): boolean {
  return seg.redirects.some((redirect) => redirect.target === word);
}

/** A working directory given to a wrapper: `env -C DIR`, `sudo -D DIR`. */
function wrapperDirectory(seg: Segment): string | undefined {
  for (const wrapper of seg.wrappers) {
    const { options } = wrapper;
    for (let i = 0; i < options.length; i += 1) {
      const option = options[i] as string;
      if (
        (wrapper.name === 'env' && option === '-C') ||
        option === '--chdir' ||
        (wrapper.name === 'sudo' && option === '-D')
      )
        return options[i + 1]?.toLowerCase();
      if (option.startsWith('--chdir=')) return option.slice(8).toLowerCase();
    }
  }
  return undefined;
}

/** The folded working directory in which `seg` runs, when the command itself decides it. */
export function effectiveCwd(seg: Segment, env: AccessEnv): string | undefined {
  const dir = wrapperDirectory(seg);
  if (dir === undefined) return env.cwd;
  if (dir.startsWith('/') || dir.startsWith('~') || env.cwd === undefined) return dir;
  return joinPath(env.cwd, dir);
}

/**
 * A directory whose files are secret (HERMES_HOME, ~/.ssh, ~/.aws…): `find DIR -exec cmd {}` and
 * `find DIR | xargs cmd` are judged as `cmd DIR/*`. Plain system directories (`/etc`) are not.
 */
export function holdsSecrets(dir: string): boolean {
  const resolved = resolvePath(dir, undefined, EMPTY_ENV, undefined);
  return (
    resolved.matches.some((m) => isHermes(m) || m.read === 'dangerous') || secretsBelow(resolved).length > 0
  );
}

/** True when `dir` is HERMES_HOME or inside it. */
export function inHermesHome(dir: string | undefined): boolean {
  if (dir === undefined) return false;
  return resolvePath(dir, undefined, EMPTY_ENV, undefined).matches.some(isHermes);
}

/** Judges every path the segment names (and its working directory) against the table. */
export function accessFindings(ctx: RuleContext, env: AccessEnv): void {
  const seg = ctx.seg;
  const uses = pathUses(seg);
  const cwd = effectiveCwd(seg, env);
  const scoped = cwd === env.cwd ? env : { ...env, cwd };
  for (const used of uses.paths) {
    if (!pathLike(used.path, scoped)) continue;
    const resolved = resolvePath(used.path, used.word, scoped, undefined);
    if (resolved.matches.length > 0 || used.recursive) judge(ctx, used, resolved, uses.unknown);
    else if (used.use !== 'read' && used.use !== 'attr' && mayBeGatewayFile(used.path)) {
      ctx.danger(DANGEROUS.hermesHomeEdit);
    }
  }
  if (uses.writesCwd && seg.verb !== '' && inHermesHome(cwd)) {
    ctx.hardline(uses.unknown ? HARDLINE.hermesUnknown : HARDLINE.hermesWrite);
  }
}
