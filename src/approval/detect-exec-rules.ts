import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { type Segment, shortLetters } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * Commands that run other commands: shells with `-c`, `eval`, `ssh host …`, `su -c`, heredocs
 * into a shell, interpreters with inline programs, and read-only tools with program flags.
 */

export const REMOTE_FETCHERS: ReadonlySet<string> = new Set([
  'curl',
  'wget',
  'fetch',
  'http',
  'https',
  'xh',
  'aria2c',
  'lwp-request',
  'iwr',
  'irm',
  'invoke-webrequest',
  'invoke-restmethod',
]);

const SHELL_VALUE_OPTIONS = new Set(['-o', '+o', '-O', '+O', '--init-file', '--rcfile']);

/** `bash -c CMD` → CMD; also says whether the shell reads its program from stdin. */
export function shellInvocation(argv: readonly string[]): {
  payload: string | undefined;
  readsStdin: boolean;
} {
  let dashC = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--' || arg === '-') {
      const rest = argv[i + 1];
      return dashC ? { payload: rest, readsStdin: false } : { payload: undefined, readsStdin: true };
    }
    if (arg.startsWith('--')) {
      if (SHELL_VALUE_OPTIONS.has(arg)) i += 1;
      continue;
    }
    if ((arg.startsWith('-') || arg.startsWith('+')) && arg.length > 1) {
      const letters = arg.slice(1);
      if (letters.includes('c')) dashC = true;
      if (letters.includes('o') || letters.includes('O')) i += 1;
      continue;
    }
    return dashC ? { payload: arg, readsStdin: false } : { payload: undefined, readsStdin: false };
  }
  return { payload: undefined, readsStdin: !dashC };
}

function substitutionsOf(seg: Segment): { word: ShellWord; process: boolean }[] {
  const out: { word: ShellWord; process: boolean }[] = [];
  for (const word of seg.args) if (word.subs.length > 0) out.push({ word, process: false });
  for (const redirect of seg.redirects) {
    if (redirect.target !== undefined && redirect.target.subs.length > 0)
      out.push({ word: redirect.target, process: true });
  }
  return out;
}

/** The obfuscation family of a decoding stage (`base64 -d`, `xxd -r`, `tr`, `openssl … -d`). */
export function decoderKey(seg: Segment): string | undefined {
  const { verb, argv, argl } = seg;
  if (verb === 'base64' || verb === 'base32' || verb === 'base16' || verb === 'basenc') {
    const decodes =
      argv.some((arg) => arg === '--decode' || arg === '-D') || shortLetters(argv).includes('d');
    return decodes ? DANGEROUS.decodePipe : undefined;
  }
  if (verb === 'xxd')
    return shortLetters(argv).includes('r') || argl.includes('--revert') ? DANGEROUS.xxdPipe : undefined;
  if (verb === 'tr') return DANGEROUS.trPipe;
  if (verb === 'openssl' && (argl.includes('enc') || argl.includes('base64')) && argl.includes('-d')) {
    return DANGEROUS.opensslPipe;
  }
  return undefined;
}

/**
 * Substitutions whose output a shell runs: `bash <(curl …)`, `eval "$(curl …)"`,
 * `sh -c "$(wget -O- …)"`, `source <(curl …)`, `eval "$(echo … | base64 -d)"`.
 */
function substitutedSources(ctx: RuleContext): void {
  for (const { word } of substitutionsOf(ctx.seg)) {
    for (const sub of word.subs) {
      for (const inner of ctx.segmentsOf(sub.list)) {
        if (REMOTE_FETCHERS.has(inner.verb)) {
          ctx.danger(sub.kind === 'process-in' ? DANGEROUS.remoteProcSubst : DANGEROUS.remoteCmdSubst);
        }
        const decoder = decoderKey(inner);
        if (decoder !== undefined) ctx.danger(decoder);
      }
    }
  }
}

export function heredocBodies(seg: Segment): string[] {
  const out: string[] = [];
  for (const redirect of seg.redirects) {
    if (
      redirect.body !== undefined &&
      (redirect.op === '<<' || redirect.op === '<<-' || redirect.op === '<<<')
    ) {
      out.push(redirect.body);
    }
  }
  return out;
}

function shell(ctx: RuleContext): void {
  const { payload } = shellInvocation(ctx.seg.argv);
  if (payload !== undefined) ctx.scanShell(payload);
  for (const body of heredocBodies(ctx.seg)) {
    ctx.danger(DANGEROUS.shellHeredoc);
    ctx.scanShell(body);
  }
  substitutedSources(ctx);
}

function evalRule(ctx: RuleContext): void {
  if (ctx.seg.argv.length > 0) ctx.scanShell(ctx.seg.argv.join(' '));
  substitutedSources(ctx);
}

/** Value of `-c CMD`, `-xc CMD`, `-cCMD`, `--command CMD` or `--command=CMD`. */
function optionValue(argv: readonly string[], letter: string, long: string): string | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') return undefined;
    if (arg === long) return argv[i + 1];
    if (arg.startsWith(`${long}=`)) return arg.slice(long.length + 1);
    if (arg.startsWith('-') && !arg.startsWith('--')) {
      const at = arg.indexOf(letter, 1);
      if (at > 0) return at === arg.length - 1 ? argv[i + 1] : arg.slice(at + 1);
    }
  }
  return undefined;
}

function su(ctx: RuleContext): void {
  const command = optionValue(ctx.seg.argv, 'c', '--command');
  if (command !== undefined) ctx.scanShell(command);
}

function runuser(ctx: RuleContext): void {
  su(ctx);
  const dashes = ctx.seg.argv.indexOf('--');
  if (dashes >= 0 && dashes + 1 < ctx.seg.args.length) ctx.scanWords(ctx.seg.args.slice(dashes + 1));
}

const SSH_VALUE_LETTERS = 'bcDEeFIiJLlmOopQRSWwB';

/** `ssh [options] host command…`: the command runs in a shell on the other side. */
function ssh(ctx: RuleContext): void {
  const { argv } = ctx.seg;
  let host = -1;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') {
      host = i + 1;
      break;
    }
    if (!arg.startsWith('-') || arg.length < 2) {
      host = i;
      break;
    }
    for (let k = 1; k < arg.length; k += 1) {
      if (!SSH_VALUE_LETTERS.includes(arg[k] as string)) continue;
      const value = k === arg.length - 1 ? argv[++i] : arg.slice(k + 1);
      if (arg[k] === 'o' && value !== undefined && /^(?:proxycommand|localcommand)[= ]/i.test(value)) {
        ctx.scanShell(value.replace(/^\w+[= ]/, ''));
      }
      break;
    }
  }
  if (host >= 0 && host + 1 < argv.length) ctx.scanShell(argv.slice(host + 1).join(' '));
}

function envSplit(ctx: RuleContext): void {
  const { argv } = ctx.seg;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    let payload: string | undefined;
    if (arg === '-S' || arg === '--split-string') payload = argv.slice(i + 1).join(' ');
    else if (arg.startsWith('--split-string=')) payload = [arg.slice(15), ...argv.slice(i + 1)].join(' ');
    else if (arg.startsWith('-S')) payload = [arg.slice(2), ...argv.slice(i + 1)].join(' ');
    if (payload !== undefined) {
      ctx.scanShell(payload);
      return;
    }
  }
}

function flock(ctx: RuleContext): void {
  const command = optionValue(ctx.seg.argv, 'c', '--command');
  if (command !== undefined) ctx.scanShell(command);
}

function watch(ctx: RuleContext): void {
  const { argv } = ctx.seg;
  let i = 0;
  while (i < argv.length && (argv[i] as string).startsWith('-')) {
    const arg = argv[i] as string;
    i += arg === '-n' || arg === '--interval' || arg === '-q' || arg === '--equexit' ? 2 : 1;
  }
  if (i < argv.length) ctx.scanShell(argv.slice(i).join(' '));
}

function script(ctx: RuleContext): void {
  const command = optionValue(ctx.seg.argv, 'c', '--command');
  if (command !== undefined) ctx.scanShell(command);
}

const TMUX_RUNNERS = new Set([
  'new',
  'new-session',
  'new-window',
  'neww',
  'split-window',
  'splitw',
  'send-keys',
  'send',
  'run-shell',
  'run',
  'respawn-pane',
  'respawnp',
  'respawn-window',
  'respawnw',
]);

/** tmux sessions and typed keys run commands in a shell. */
function tmux(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  const at = argl.findIndex((arg) => TMUX_RUNNERS.has(arg));
  if (at < 0) return;
  const words: string[] = [];
  for (let i = at + 1; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg.length === 2 && 'tsncFxyelpwS'.includes(arg[1] as string)) i += 1;
    else if (!arg.startsWith('-')) words.push(arg);
  }
  if (words.length > 0) ctx.scanShell(words.join(' '), true);
}

function screen(ctx: RuleContext): void {
  const { argv, args } = ctx.seg;
  let i = 0;
  while (i < argv.length && (argv[i] as string).startsWith('-')) {
    const arg = argv[i] as string;
    i += arg === '-S' || arg === '-X' || arg === '-p' || arg === '-c' || arg === '-t' || arg === '-T' ? 2 : 1;
  }
  const x = argv.indexOf('-X');
  if (x >= 0 && argv[x + 1] === 'stuff' && argv[x + 2] !== undefined)
    ctx.scanShell(argv[x + 2] as string, true);
  else if (i < args.length) ctx.scanWords(args.slice(i));
}

function sourceRule(ctx: RuleContext): void {
  substitutedSources(ctx);
}

export const execRules: readonly VerbRules[] = [
  { verbs: ['shell'], run: shell },
  { verbs: ['eval'], run: evalRule },
  { verbs: ['source', '.'], run: sourceRule },
  { verbs: ['su', 'sg'], run: su },
  { verbs: ['runuser'], run: runuser },
  { verbs: ['ssh'], run: ssh },
  { verbs: ['env'], run: envSplit },
  { verbs: ['flock'], run: flock },
  { verbs: ['watch'], run: watch },
  { verbs: ['script'], run: script },
  { verbs: ['tmux'], run: tmux },
  { verbs: ['screen'], run: screen },
];
