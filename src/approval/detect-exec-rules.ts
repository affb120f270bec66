import type { RuleContext, VerbRules } from './detect-context.js';
import { evalRules } from './detect-eval-rules.js';
import { DANGEROUS } from './detect-keys.js';
import { heredocBodies } from './detect-literal-output.js';
import { positionalOf, STDIN_FILES, shellCall, stdinProgram, stdinSource } from './detect-shell-call.js';
import { substitutedSources } from './detect-substituted-sources.js';
import { resolveLongOption } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * Commands that run other commands: shells with `-c` (and their arguments as `$0 $1 …`),
 * heredocs into a shell, `ssh host …`, `su -c`, `runuser`, `env -S`, `flock -c`, `watch`,
 * `script -c`, tmux and screen. `eval`/`source` are in detect-eval-rules.ts.
 */

export { heredocBodies } from './detect-literal-output.js';
export { STDIN_FILES, shellInvocation, stdinProgram, stdinSource } from './detect-shell-call.js';
export { decoderKey, REMOTE_FETCHERS } from './detect-substituted-sources.js';

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
  // `su [opts] [-] [user] -- ARGS…`: the arguments after `--` go to the user's shell.
  const dashes = ctx.seg.argv.indexOf('--');
  if (dashes >= 0 && ctx.seg.verb !== 'runuser') {
    const call = shellCall(ctx.seg.args.slice(dashes + 1));
    if (call.payload !== undefined) ctx.runPayload(call.payload, positionalOf(call.rest, 'sh'));
  }
}

/** `vagrant ssh -c CMD` / `--command CMD`: a command on the guest machine. */
function vagrant(ctx: RuleContext): void {
  if (ctx.seg.argl[0] !== 'ssh') return;
  const command = optionWord(ctx.seg.args.slice(1), 'c', '--command');
  if (command === undefined) return;
  ctx.danger(DANGEROUS.remoteCommand);
  ctx.runPayload(command, ['bash']);
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

/** `mosh [options] host [--] command…`: like ssh, the command runs on the other host. */
function mosh(ctx: RuleContext): void {
  const { args } = ctx.seg;
  let i = 0;
  while (i < args.length && (args[i] as ShellWord).text.startsWith('-')) {
    const arg = (args[i] as ShellWord).text;
    i += /^-[p]$|^--(?:ssh|port|predict|family|server|bind-server|client|experimental-remote-ip)$/.test(arg)
      ? 2
      : 1;
  }
  let command = args.slice(i + 1);
  if (command[0]?.text === '--') command = command.slice(1);
  if (command.length === 0) return;
  ctx.danger(DANGEROUS.remoteCommand);
  if (command.some((word) => word.expanded)) ctx.danger(DANGEROUS.codeFromData);
  ctx.scanShell(command.map((word) => word.text).join(' '), false, ['bash']);
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

/** `ssh-keygen -D lib.so` (or `-S`/`-w` providers) loads a shared library. */
function sshKeygen(ctx: RuleContext): void {
  if (ctx.seg.argv.some((arg) => /^-[a-zA-Z]*[Dw]/.test(arg))) ctx.danger(DANGEROUS.optionProgram);
}

export const execRules: readonly VerbRules[] = [
  ...evalRules,
  { verbs: ['shell'], run: shell },
  { verbs: ['ssh-keygen'], run: sshKeygen },
  { verbs: ['su', 'sg'], run: su },
  { verbs: ['runuser'], run: runuser },
  { verbs: ['ssh'], run: ssh },
  { verbs: ['mosh', 'autossh'], run: mosh },
  { verbs: ['vagrant'], run: vagrant },
  { verbs: ['env'], run: envSplit },
  { verbs: ['flock'], run: flock },
  { verbs: ['watch'], run: watch },
  { verbs: ['script'], run: script },
  { verbs: ['tmux'], run: tmux },
  { verbs: ['screen'], run: screen },
];
