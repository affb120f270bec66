import type { Positional } from './detect-bindings.js';
import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { heredocBodies, literalOutput } from './detect-literal-output.js';
import { resolveLongOption, type Segment, shortLetters, verbName } from './shell-segment.js';
import type { ShellList, ShellWord } from './shell-types.js';
import { staticWord } from './shell-word-builder.js';

/**
 * Commands that run other commands: shells with `-c`, `eval`, `ssh host …`, `su -c`, heredocs
 * into a shell, interpreters with inline programs, and read-only tools with program flags.
 */

export { heredocBodies } from './detect-literal-output.js';

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

const SHELL_VALUE_OPTIONS = new Set(['--init-file', '--rcfile']);
/** Files that name the shell's own stdin (or another inherited descriptor). */
export const STDIN_FILES = /^(?:-|\/dev\/stdin|\/dev\/fd\/[0-9]+|\/proc\/[^/]+\/fd\/[0-9]+)$/;

/** How a shell is invoked: its `-c` text, or the script it runs, or stdin. */
export interface ShellCall {
  /** The `-c` text. */
  readonly payload: ShellWord | undefined;
  /** The script file operand (not with `-c` or `-s`). */
  readonly script: ShellWord | undefined;
  /** The words after the payload or script: `$0 $1…` for `-c`, `$1…` otherwise. */
  readonly rest: readonly ShellWord[];
  /** No `-c` and no script (or `-s`): the program comes from stdin. */
  readonly readsStdin: boolean;
  /** `-n`, `--version`, `--help`: nothing is executed. */
  readonly noExec: boolean;
  /** The `--rcfile`/`--init-file` an interactive shell runs first. */
  readonly startup?: ShellWord | undefined;
}

export function shellCall(args: readonly ShellWord[]): ShellCall {
  let dashC = false;
  let dashS = false;
  let noExec = false;
  let startup: ShellWord | undefined;
  let start = args.length;
  for (let i = 0; i < args.length; i += 1) {
    const arg = (args[i] as ShellWord).text;
    if (arg === '--' || arg === '-') {
      start = i + 1;
      break;
    }
    if (arg.startsWith('--')) {
      if (arg === '--version' || arg === '--help') noExec = true;
      if (SHELL_VALUE_OPTIONS.has(arg)) {
        i += 1;
        startup = args[i];
      }
      continue;
    }
    if ((arg.startsWith('-') || arg.startsWith('+')) && arg.length > 1) {
      const letters = arg.slice(1);
      if (letters.includes('c')) dashC = true;
      if (letters.includes('s')) dashS = true;
      if (letters.includes('n') && arg.startsWith('-')) noExec = true;
      if (letters.includes('o') || letters.includes('O')) i += 1;
      continue;
    }
    start = i;
    break;
  }
  const operands = args.slice(start);
  if (dashC)
    return {
      payload: operands[0],
      script: undefined,
      rest: operands.slice(1),
      readsStdin: false,
      noExec,
      startup,
    };
  if (dashS)
    return { payload: undefined, script: undefined, rest: operands, readsStdin: true, noExec, startup };
  const script = operands[0];
  return {
    payload: undefined,
    script,
    rest: operands.slice(1),
    readsStdin: script === undefined,
    noExec,
    startup,
  };
}

/** `bash -c CMD` → CMD; also says whether the shell reads its program from stdin. */
export function shellInvocation(argv: readonly string[]): {
  payload: string | undefined;
  readsStdin: boolean;
} {
  const call = shellCall(argv.map((text) => staticWord(text)));
  const readsStdin = call.readsStdin || (call.script !== undefined && STDIN_FILES.test(call.script.text));
  return { payload: call.payload?.text, readsStdin };
}

/** Positional parameters a payload runs with (`$0` first), or null when any is not known. */
function positionalOf(words: readonly ShellWord[], zero: string): Positional {
  if (words.some((word) => word.expanded || word.dynamic)) return null;
  return words.length === 0 ? [zero] : words.map((word) => word.text);
}

/**
 * Where a program that reads its code from stdin gets it. The terminal gives commands an empty
 * stdin, so `none` means nothing runs; pipes and heredocs are judged by their own rules
 * (`visible`); a plain file redirect is like a script file; a redirect from an expansion or a
 * process substitution is code not known statically (`unknown`).
 */
export function stdinSource(ctx: RuleContext): 'none' | 'visible' | 'file' | 'unknown' {
  if (ctx.stdinPiped) return 'visible';
  for (const redirect of ctx.seg.redirects) {
    if (redirect.op === '<<' || redirect.op === '<<-' || redirect.op === '<<<') return 'visible';
    if (redirect.op === '<' && (redirect.fd === undefined || redirect.fd === 0)) {
      const target = redirect.target;
      if (target === undefined || target.expanded || target.subs.length > 0) return 'unknown';
      return 'file';
    }
  }
  return 'none';
}

/** Flags a program read from stdin when that stdin is redirected from something not known. */
export function stdinProgram(ctx: RuleContext): void {
  const first = ctx.seg.command.words[0];
  // `coproc sh`: the rest of the command writes the program into its stdin.
  if (first !== undefined && !first.quoted && first.text === 'coproc') ctx.danger(DANGEROUS.codeFromData);
  else if (stdinSource(ctx) === 'unknown') ctx.danger(DANGEROUS.unresolvedProgram);
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

function shell(ctx: RuleContext): void {
  const call = shellCall(ctx.seg.args);
  if (call.startup !== undefined && (call.startup.expanded || STDIN_FILES.test(call.startup.text)))
    ctx.danger(DANGEROUS.codeFromData);
  if (call.payload !== undefined) {
    ctx.runPayload(call.payload, positionalOf(call.rest, ctx.seg.verb));
  } else if (call.script !== undefined && !call.noExec) {
    if (call.script.expanded) ctx.danger(DANGEROUS.unresolvedProgram);
    if (STDIN_FILES.test(call.script.text)) stdinProgram(ctx);
  } else if (call.readsStdin && !call.noExec) {
    stdinProgram(ctx);
  }
  for (const body of heredocBodies(ctx.seg)) {
    ctx.danger(DANGEROUS.shellHeredoc);
    ctx.scanShell(body, false, positionalOf(call.rest, ctx.seg.verb));
  }
  substitutedSources(ctx);
}

/**
 * Programs whose output is, by design, shell code that sets up the environment
 * (`eval "$(ssh-agent -s)"`, `source <(kubectl completion bash)`): the program is static and
 * so is what it prints, in kind. Anything else evaluated from a substitution is data.
 */
const SETUP_PRINTERS: ReadonlyMap<string, RegExp> = new Map([
  ['ssh-agent', /^(?:-[sc])?$/],
  ['direnv', /^(?:hook|export) \w+$/],
  ['pyenv', /^(?:init|virtualenv-init)(?: -| --path)*$/],
  ['rbenv', /^init(?: -)?$/],
  ['nodenv', /^init(?: -)?$/],
  ['goenv', /^init(?: -)?$/],
  ['jenv', /^init(?: -)?$/],
  ['brew', /^shellenv(?: \w+)?$/],
  ['fnm', /^env(?: --[\w-]+(?:=\S+)?)*$/],
  ['zoxide', /^init \w+(?: --[\w-]+(?: \w+)?)*$/],
  ['starship', /^init \w+$/],
  ['mise', /^activate \w+$/],
  ['conda', /^shell\.\w+ hook$/],
  ['opam', /^env(?: --[\w-]+)*$/],
  ['dircolors', /^(?:-[bc])?(?: [\w./~-]+)?$/],
  ['keychain', /^--eval(?: [\w./~-]+)*$/],
  ['thefuck', /^--alias(?: \w+)?$/],
  ['luarocks', /^path$/],
]);

/** A substitution word that only runs a setup printer or a `completion` generator. */
function setupPrinter(ctx: RuleContext, word: ShellWord): boolean {
  const sub = word.subs[0];
  if (word.subs.length !== 1 || sub === undefined) return false;
  const segments = ctx.segmentsOf(sub.list);
  const only = segments.length === 1 ? segments[0] : undefined;
  const words = only?.command.words ?? [];
  const first = words[0];
  if (first === undefined || words.some((w) => w.expanded) || (only?.assignments.length ?? 0) > 0)
    return false;
  const args = words
    .slice(1)
    .map((w) => w.text)
    .join(' ');
  if (/^(?:completions?|--completion) (?:-s )?(?:bash|zsh|fish)$/.test(args)) return true;
  return SETUP_PRINTERS.get(verbName(first.text))?.test(args) === true;
}

function evalRule(ctx: RuleContext): void {
  const words = ctx.seg.args;
  if (words.length === 1 && setupPrinter(ctx, words[0] as ShellWord)) return;
  if (words.some((word) => word.expanded)) ctx.danger(DANGEROUS.codeFromData);
  if (ctx.seg.argv.length > 0) ctx.scanShell(ctx.seg.argv.join(' '), false, ctx.positional);
  // `eval "$(echo …)"`: what the substitution prints is what runs.
  for (const word of words) {
    if (word.subs.length !== 1) continue;
    const segments = ctx.segmentsOf((word.subs[0] as { list: ShellList }).list);
    const only = segments.length === 1 ? segments[0] : undefined;
    for (const text of only === undefined ? [] : (literalOutput(only) ?? []))
      ctx.scanShell(text, false, ctx.positional);
  }
  substitutedSources(ctx);
}

/** Word holding the value of `-c CMD`, `-xc CMD`, `-cCMD`, `--command CMD` or `--command=CMD`. */
function optionWord(args: readonly ShellWord[], letter: string, long: string): ShellWord | undefined {
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] as ShellWord;
    const arg = word.text;
    if (arg === '--') return undefined;
    if (arg === long || (long.length > 3 && arg.length > 3 && long.startsWith(arg) && arg.startsWith('--')))
      return args[i + 1];
    if (arg.startsWith(`${long}=`)) return { ...word, text: arg.slice(long.length + 1) };
    if (arg.startsWith('-') && !arg.startsWith('--')) {
      const at = arg.indexOf(letter, 1);
      if (at > 0) return at === arg.length - 1 ? args[i + 1] : { ...word, text: arg.slice(at + 1) };
    }
  }
  return undefined;
}

function su(ctx: RuleContext): void {
  ctx.runPayload(optionWord(ctx.seg.args, 'c', '--command'));
}

/** `runuser -u USER [--] CMD…`, `runuser [-l] USER -c CMD`. */
function runuser(ctx: RuleContext): void {
  su(ctx);
  const { args, argv } = ctx.seg;
  const dashes = argv.indexOf('--');
  if (dashes >= 0) {
    if (dashes + 1 < args.length) ctx.scanWords(args.slice(dashes + 1));
    return;
  }
  if (!argv.some((arg) => arg === '-u' || arg === '--user' || arg.startsWith('--user='))) return;
  let i = 0;
  while (i < argv.length && (argv[i] as string).startsWith('-')) {
    const arg = argv[i] as string;
    i += /^-[ugGcsw]$|^--(?:user|group|supp-group|command|shell|whitelist-environment)$/.test(arg) ? 2 : 1;
  }
  if (i < args.length) ctx.scanWords(args.slice(i));
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
      if (
        arg[k] === 'o' &&
        value !== undefined &&
        /^(?:proxycommand|localcommand|knownhostscommand)[= ]/i.test(value)
      ) {
        ctx.scanShell(value.replace(/^\w+[= ]/, ''));
      }
      if (arg[k] === 'o' && value !== undefined && /^remotecommand[= ]/i.test(value)) {
        ctx.danger(DANGEROUS.remoteCommand);
        ctx.scanShell(value.replace(/^\w+[= ]/, ''));
      }
      // A PKCS#11 / security-key provider is a shared library loaded into ssh.
      if (
        arg[k] === 'I' ||
        (arg[k] === 'o' && /^(?:pkcs11provider|securitykeyprovider)[= ]/i.test(value ?? ''))
      )
        ctx.danger(DANGEROUS.optionProgram);
      break;
    }
  }
  if (host >= 0 && host + 1 < argv.length) {
    ctx.danger(DANGEROUS.remoteCommand);
    if (ctx.seg.args.slice(host + 1).some((word) => word.expanded)) ctx.danger(DANGEROUS.codeFromData);
    ctx.scanShell(argv.slice(host + 1).join(' '), false, ['bash']);
  } else if (host >= 0 && stdinSource(ctx) !== 'none') {
    // No command, but stdin is fed to the remote login shell.
    ctx.danger(DANGEROUS.remoteCommand);
    for (const body of heredocBodies(ctx.seg)) ctx.scanShell(body, true);
  }
}

const ENV_LONGS = [
  '--split-string',
  '--ignore-environment',
  '--null',
  '--unset',
  '--chdir',
  '--argv0',
  '--block-signal',
  '--default-signal',
  '--ignore-signal',
  '--list-signal-handling',
  '--debug',
  '--help',
  '--version',
];

/** `env -S 'cmd args'` / `--split-string` (any unambiguous prefix): the string becomes a command. */
function envSplit(ctx: RuleContext): void {
  const { args } = ctx.seg;
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] as ShellWord;
    const arg = word.text;
    let payload: ShellWord[] | undefined;
    if (arg === '-S') payload = args.slice(i + 1);
    else if (arg.startsWith('--') && resolveLongOption(arg, ENV_LONGS) === '--split-string') {
      const eq = arg.indexOf('=');
      payload = eq < 0 ? args.slice(i + 1) : [{ ...word, text: arg.slice(eq + 1) }, ...args.slice(i + 1)];
    } else if (/^-[^-]*S/.test(arg)) {
      const rest = arg.slice(arg.indexOf('S') + 1);
      payload = rest === '' ? args.slice(i + 1) : [{ ...word, text: rest }, ...args.slice(i + 1)];
    }
    if (payload !== undefined) {
      if (payload.some((part) => part.expanded)) ctx.danger(DANGEROUS.codeFromData);
      ctx.scanShell(payload.map((part) => part.text).join(' '));
      return;
    }
  }
}

function flock(ctx: RuleContext): void {
  ctx.runPayload(optionWord(ctx.seg.args, 'c', '--command'));
}

const WATCH_VALUED = new Set(['-n', '--interval', '-q', '--equexit', '--exit-on-change']);

/** `watch [options] CMD…`: the words are joined and run by `sh -c` (unless `-x`). */
function watch(ctx: RuleContext): void {
  const { args } = ctx.seg;
  let i = 0;
  let exec = false;
  while (i < args.length && (args[i] as ShellWord).text.startsWith('-')) {
    const arg = (args[i] as ShellWord).text;
    if (arg === '--') {
      i += 1;
      break;
    }
    if (arg === '-x' || arg === '--exec') exec = true;
    i += WATCH_VALUED.has(arg) ? 2 : 1;
  }
  const command = args.slice(i);
  if (command.length === 0) return;
  if (exec) {
    ctx.scanWords(command);
    return;
  }
  if (command.some((word) => word.expanded)) ctx.danger(DANGEROUS.codeFromData);
  ctx.scanShell(command.map((word) => word.text).join(' '));
}

function script(ctx: RuleContext): void {
  ctx.runPayload(optionWord(ctx.seg.args, 'c', '--command'));
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

/** `source FILE` / `. FILE`: a plain path is like running a script; anything else is data. */
function sourceRule(ctx: RuleContext): void {
  const file = ctx.seg.args.find((word) => word.text !== '--');
  if (file !== undefined) {
    if (file.subs.some((sub) => sub.kind === 'process-in' || sub.kind === 'process-out')) {
      if (!setupPrinter(ctx, file)) ctx.danger(DANGEROUS.codeFromData);
    } else if (file.expanded) ctx.danger(DANGEROUS.unresolvedProgram);
    if (STDIN_FILES.test(file.text) && file.text !== '-') {
      stdinProgram(ctx);
      for (const body of heredocBodies(ctx.seg)) {
        ctx.danger(DANGEROUS.shellHeredoc);
        ctx.scanShell(body, false, ctx.positional);
      }
    }
  }
  substitutedSources(ctx);
}

/** `enable -f lib.so name` loads a builtin from a shared object into the shell. */
function enable(ctx: RuleContext): void {
  if (ctx.seg.argv.some((arg) => /^-[a-zA-Z]*f/.test(arg))) ctx.danger(DANGEROUS.optionProgram);
}

/** `ssh-keygen -D lib.so` (or `-S`/`-w` providers) loads a shared library. */
function sshKeygen(ctx: RuleContext): void {
  if (ctx.seg.argv.some((arg) => /^-[a-zA-Z]*[Dw]/.test(arg))) ctx.danger(DANGEROUS.optionProgram);
}

/** `mapfile -C CALLBACK`, `compgen -C CMD`, `complete -C CMD`: the shell runs the text. */
function callbacks(ctx: RuleContext): void {
  const { args } = ctx.seg;
  for (let i = 0; i < args.length; i += 1) {
    const arg = (args[i] as ShellWord).text;
    if (arg === '-C') ctx.runPayload(args[i + 1], ctx.positional);
    else if (/^-C./.test(arg))
      ctx.runPayload({ ...(args[i] as ShellWord), text: arg.slice(2) }, ctx.positional);
  }
}

export const execRules: readonly VerbRules[] = [
  { verbs: ['shell'], run: shell },
  { verbs: ['eval'], run: evalRule },
  { verbs: ['source', '.'], run: sourceRule },
  { verbs: ['enable'], run: enable },
  { verbs: ['ssh-keygen'], run: sshKeygen },
  { verbs: ['mapfile', 'readarray', 'compgen', 'complete'], run: callbacks },
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
