import { clientEscapeRules } from './detect-client-escape-rules.js';
import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { isBlockDevice, isHermesHomePath, isSensitiveWriteTarget } from './detect-paths.js';
import { COMPRESSORS, isAcceptedProgram, SSH_PROGRAMS } from './detect-programs.js';
import { sedEffects } from './sed-script.js';
import { operands, resolveLongOption } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * Programs with a way out to a shell in their options or scripts: sed `e` and `s///e`, tar
 * `--checkpoint-action=exec` / `--to-command` / `-I`, zip `-TT`, rsync `-e`, scp `-S`, tcpdump
 * `-z`, apt `-o …Invoke`, find `-fprint`, PowerShell `-File`. An option that names one
 * well-known program with plain arguments (`tar -I zstd`, `rsync -e 'ssh -p 2222'`) is
 * understood; anything else needs approval, and the command it names is scanned.
 */

/** Scans `command` (the value of an option) and flags it unless it runs one accepted program. */
function optionCommand(
  ctx: RuleContext,
  command: string,
  word: ShellWord | undefined,
  accepted: readonly string[],
  key: string,
): void {
  ctx.scanShell(command);
  if (word?.expanded === true || !isAcceptedProgram(command, accepted)) ctx.danger(key);
}

/** Outside the working tree, or not known: absolute, home-relative, `..`, or an expansion. */
function writesOutside(path: string, expanded: boolean): boolean {
  if (expanded) return true;
  if (path === '/dev/stdout' || path === '/dev/stderr' || path === '/dev/null') return false;
  return path.startsWith('/') || path.startsWith('~') || path.split('/').includes('..');
}

// --- sed -----------------------------------------------------------------------------------------

const SED_LONGS = [
  '--expression',
  '--file',
  '--in-place',
  '--sandbox',
  '--quiet',
  '--silent',
  '--regexp-extended',
  '--separate',
  '--null-data',
  '--zero-terminated',
  '--unbuffered',
  '--line-length',
  '--posix',
  '--debug',
  '--follow-symlinks',
  '--binary',
  '--help',
  '--version',
];
const STDIN_FILES = /^(?:-|\/dev\/stdin|\/dev\/fd\/[0-9]+|\/proc\/[^/]+\/fd\/[0-9]+)$/;

function sed(ctx: RuleContext): void {
  const { args } = ctx.seg;
  const scripts: ShellWord[] = [];
  const files: ShellWord[] = [];
  let sandbox = false;
  let inPlace = false;
  let scriptFile = false;
  let options = true;
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] as ShellWord;
    const arg = word.text;
    if (options && arg === '--') {
      options = false;
      continue;
    }
    if (options && arg.startsWith('--')) {
      const name = resolveLongOption(arg, SED_LONGS);
      const eq = arg.indexOf('=');
      const value = eq >= 0 ? { ...word, text: arg.slice(eq + 1) } : args[++i];
      if (name === '--sandbox') sandbox = true;
      if (name === '--in-place') inPlace = true;
      if (name === '--in-place' || name === '--line-length') {
        if (eq < 0 && name === '--in-place') i -= 1;
        continue;
      }
      if (name === '--expression' && value !== undefined) scripts.push(value);
      else if (name === '--file' && value !== undefined) {
        scriptFile = true;
        if (STDIN_FILES.test(value.text) || value.expanded) ctx.danger(DANGEROUS.codeFromData);
      } else if (eq < 0) i -= 1;
      continue;
    }
    if (options && arg.startsWith('-') && arg.length > 1) {
      for (let k = 1; k < arg.length; k += 1) {
        const letter = arg[k];
        if (letter === 'i') {
          inPlace = true;
          break;
        }
        if (letter === 'e' || letter === 'f' || letter === 'l') {
          const rest = arg.slice(k + 1);
          const value = rest !== '' ? { ...word, text: rest } : args[++i];
          if (letter === 'e' && value !== undefined) scripts.push(value);
          if (letter === 'f' && value !== undefined) {
            scriptFile = true;
            if (STDIN_FILES.test(value.text) || value.expanded) ctx.danger(DANGEROUS.codeFromData);
          }
          break;
        }
      }
      continue;
    }
    if (scripts.length === 0 && !scriptFile) scripts.push(word);
    else files.push(word);
  }
  if (inPlace && files.some((file) => file.expanded)) ctx.danger(DANGEROUS.unresolvedWriteTarget);
  if (sandbox) return;
  for (const script of scripts) {
    if (script.expanded) ctx.danger(DANGEROUS.codeFromData);
    const { exec, writes } = sedEffects(script.text);
    for (const command of exec) {
      ctx.danger(DANGEROUS.sedExec);
      if (command !== '') ctx.scanShell(command);
    }
    for (const target of writes) {
      const lower = target.toLowerCase();
      if (
        isBlockDevice(lower) ||
        isSensitiveWriteTarget(lower) ||
        isHermesHomePath(lower) ||
        writesOutside(lower, false)
      )
        ctx.danger(DANGEROUS.sedWrite);
    }
  }
}

// --- tar -----------------------------------------------------------------------------------------

const TAR_LONGS = [
  '--checkpoint',
  '--checkpoint-action',
  '--check-device',
  '--check-links',
  '--to-command',
  '--to-stdout',
  '--totals',
  '--touch',
  '--use-compress-program',
  '--usage',
  '--utc',
  '--unlink-first',
  '--unquote',
  '--update',
  '--info-script',
  '--new-volume-script',
  '--newer',
  '--newer-mtime',
  '--rsh-command',
  '--rmt-command',
  '--remove-files',
  '--recursion',
  '--recursive-unlink',
  '--record-size',
  '--restrict',
];
/** Old-style letters (`tar xIf zstd a.tar`) that take the next argument. */
const TAR_VALUE_LETTERS = 'fbCgIKLNTVXF';

function tarProgram(
  ctx: RuleContext,
  option: string,
  value: ShellWord | undefined,
  text: string | undefined,
): void {
  if (text === undefined) return;
  if (option === '--checkpoint-action') {
    const exec = /^exec=(.*)$/s.exec(text);
    if (exec !== null) {
      ctx.danger(DANGEROUS.tarExec);
      ctx.scanShell(exec[1] as string);
    }
    return;
  }
  if (option === '--use-compress-program' || option === '-I') {
    optionCommand(ctx, text, value, COMPRESSORS, DANGEROUS.tarExec);
    return;
  }
  ctx.danger(DANGEROUS.tarExec);
  ctx.scanShell(text);
}

function tar(ctx: RuleContext): void {
  const { args } = ctx.seg;
  let start = 0;
  const first = args[0]?.text;
  if (first !== undefined && !first.startsWith('-') && /^[a-zA-Z]+$/.test(first)) {
    // Old style: each letter that needs a value takes the next argument in turn.
    let next = 1;
    for (const letter of first) {
      if (!TAR_VALUE_LETTERS.includes(letter)) continue;
      const value = args[next];
      if (letter === 'I') tarProgram(ctx, '-I', value, value?.text);
      if (letter === 'F') tarProgram(ctx, '--info-script', value, value?.text);
      next += 1;
    }
    start = next;
  }
  for (let i = start; i < args.length; i += 1) {
    const word = args[i] as ShellWord;
    const arg = word.text;
    if (arg === '--') break;
    if (arg.startsWith('--')) {
      const name = resolveLongOption(arg, TAR_LONGS);
      const eq = arg.indexOf('=');
      const takes =
        name === '--checkpoint-action' ||
        name === '--to-command' ||
        name === '--use-compress-program' ||
        name === '--info-script' ||
        name === '--new-volume-script' ||
        name === '--rsh-command' ||
        name === '--rmt-command';
      if (name === undefined || !takes) continue;
      const value = eq >= 0 ? word : args[i + 1];
      tarProgram(ctx, name, value, eq >= 0 ? arg.slice(eq + 1) : args[++i]?.text);
      continue;
    }
    if (!arg.startsWith('-') || arg.length < 2) continue;
    for (let k = 1; k < arg.length; k += 1) {
      const letter = arg[k] as string;
      if (!TAR_VALUE_LETTERS.includes(letter)) continue;
      const rest = arg.slice(k + 1);
      const value = rest !== '' ? word : args[i + 1];
      const text = rest !== '' ? rest : args[++i]?.text;
      if (letter === 'I') tarProgram(ctx, '-I', value, text);
      if (letter === 'F') tarProgram(ctx, '--info-script', value, text);
      break;
    }
  }
}

// --- zip, rsync, scp, tcpdump, apt, wget, less ----------------------------------------------------

function zip(ctx: RuleContext): void {
  const { argv } = ctx.seg;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    let command: string | undefined;
    if (arg === '-TT' || arg === '--unzip-command') command = argv[i + 1];
    else if (arg.startsWith('--unzip-command=')) command = arg.slice(16);
    else if (arg.startsWith('-TT')) command = arg.slice(3);
    if (command === undefined) continue;
    ctx.danger(DANGEROUS.zipExec);
    ctx.scanShell(command);
  }
}

function rsync(ctx: RuleContext): void {
  const { args } = ctx.seg;
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] as ShellWord;
    const arg = word.text;
    if (arg === '--') return;
    if (arg.startsWith('--')) {
      const name = resolveLongOption(arg, [
        '--rsh',
        '--rsync-path',
        '--recursive',
        '--relative',
        '--remove-source-files',
      ]);
      if (name !== '--rsh') continue;
      const eq = arg.indexOf('=');
      const value = eq >= 0 ? word : args[++i];
      const text = eq >= 0 ? arg.slice(eq + 1) : value?.text;
      if (text !== undefined) optionCommand(ctx, text, value, SSH_PROGRAMS, DANGEROUS.optionProgram);
      continue;
    }
    if (!arg.startsWith('-')) continue;
    const at = arg.indexOf('e', 1);
    const before = arg.slice(1, at < 0 ? undefined : at);
    // Letters that take a value end the cluster before `e` could be reached.
    if (at < 0 || /[BfTM]/.test(before)) continue;
    const rest = arg.slice(at + 1);
    const value = rest !== '' ? word : args[++i];
    const text = rest !== '' ? rest : value?.text;
    if (text !== undefined) optionCommand(ctx, text, value, SSH_PROGRAMS, DANGEROUS.optionProgram);
  }
}

function scp(ctx: RuleContext): void {
  const { args } = ctx.seg;
  for (let i = 0; i < args.length; i += 1) {
    const arg = (args[i] as ShellWord).text;
    if (arg === '-S') {
      const value = args[++i];
      if (value !== undefined) optionCommand(ctx, value.text, value, SSH_PROGRAMS, DANGEROUS.optionProgram);
    } else if (arg === '-o' || /^-o./.test(arg)) {
      const value = arg === '-o' ? args[++i]?.text : arg.slice(2);
      const match = /^(?:proxycommand|localcommand|knownhostscommand)[= ](.*)$/is.exec(value ?? '');
      if (match !== null) ctx.scanShell(match[1] as string);
    }
  }
}

function tcpdump(ctx: RuleContext): void {
  const { argv } = ctx.seg;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const command = arg === '-z' ? argv[i + 1] : /^-z./.test(arg) ? arg.slice(2) : undefined;
    if (command === undefined) continue;
    ctx.danger(DANGEROUS.optionProgram);
    ctx.scanShell(command);
  }
}

const APT_HOOK = /(?:pre|post)-invoke|pre-install-pkgs|::invoke/i;

function apt(ctx: RuleContext): void {
  const { argv } = ctx.seg;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    let value: string | undefined;
    if (arg === '-o' || arg === '--option') value = argv[i + 1];
    else if (/^-o./.test(arg)) value = arg.slice(2);
    else if (arg.startsWith('--option=')) value = arg.slice(9);
    if (value === undefined || !APT_HOOK.test(value)) continue;
    ctx.danger(DANGEROUS.optionProgram);
    const eq = value.indexOf('=');
    if (eq >= 0) ctx.scanShell(value.slice(eq + 1));
  }
}

function wget(ctx: RuleContext): void {
  for (const arg of ctx.seg.argl) {
    if (arg.startsWith('--use-askpass=')) {
      ctx.danger(DANGEROUS.optionProgram);
      ctx.scanShell(arg.slice(14));
    }
  }
}

/** `less '+!cmd' file`: a startup command that runs a shell. */
function pager(ctx: RuleContext): void {
  for (const arg of ctx.seg.argv) {
    if (arg.startsWith('+') && /[!|]/.test(arg)) {
      ctx.danger(DANGEROUS.optionProgram);
      ctx.scanShell(arg.slice(arg.search(/[!|]/) + 1), true);
    }
  }
}

/** npm/pnpm/yarn settings that name a program run for scripts, editors, git… */
const NPM_PROGRAM_KEYS = new Set([
  'script-shell',
  'shell',
  'editor',
  'browser',
  'git',
  'node-options',
  'onload-script',
  'init-module',
  'viewer',
  'globalconfig',
  'userconfig',
]);

function npmLike(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  for (let i = 0; i < argl.length; i += 1) {
    const arg = argl[i] as string;
    if (arg === '--script-shell' || arg.startsWith('--script-shell=')) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : (argv[i + 1] ?? '');
      if (!isAcceptedProgram(value, ['bash', 'sh', 'zsh', 'dash'])) ctx.danger(DANGEROUS.optionProgram);
    }
  }
  const ops = operands(argl);
  const at = ops[0] === 'config' && ops[1] === 'set' ? 2 : ops[0] === 'set' ? 1 : -1;
  if (at < 0) return;
  for (const op of ops.slice(at)) {
    const key = op.split('=')[0] ?? '';
    if (NPM_PROGRAM_KEYS.has(key.replace(/^--/, ''))) ctx.danger(DANGEROUS.optionProgram);
  }
}

// --- find -fprint, PowerShell -File ---------------------------------------------------------------

function findWrites(ctx: RuleContext): void {
  const { args, argl } = ctx.seg;
  for (let i = 0; i < args.length; i += 1) {
    const option = argl[i] as string;
    if (option !== '-fprint' && option !== '-fprint0' && option !== '-fprintf' && option !== '-fls') continue;
    const target = args[i + 1];
    if (target === undefined) continue;
    const lower = target.text.toLowerCase();
    if (writesOutside(lower, target.expanded) || isSensitiveWriteTarget(lower))
      ctx.danger(DANGEROUS.findWrite);
  }
}

function powershell(ctx: RuleContext): void {
  const { argl } = ctx.seg;
  const params = argl.filter((arg) => arg.startsWith('-') || arg.startsWith('/'));
  const file = params.some((arg) => {
    const name = arg.slice(1).split(':')[0] ?? '';
    return name.length >= 1 && 'file'.startsWith(name);
  });
  const first = operands(argl)[0];
  const positionalScript = ctx.seg.verb === 'pwsh' && params.length === 0 && first?.endsWith('.ps1') === true;
  if (file || positionalScript) ctx.danger(DANGEROUS.psFile);
}

export const escapeRules: readonly VerbRules[] = [
  { verbs: ['sed', 'gsed'], run: sed },
  { verbs: ['tar', 'gtar', 'bsdtar'], run: tar },
  { verbs: ['zip'], run: zip },
  { verbs: ['rsync'], run: rsync },
  { verbs: ['scp', 'sftp'], run: scp },
  { verbs: ['tcpdump'], run: tcpdump },
  { verbs: ['apt', 'apt-get', 'aptitude'], run: apt },
  { verbs: ['wget'], run: wget },
  { verbs: ['less', 'more'], run: pager },
  { verbs: ['find', 'gfind'], run: findWrites },
  { verbs: ['powershell', 'pwsh'], run: powershell },
  { verbs: ['npm', 'pnpm', 'yarn'], run: npmLike },
  ...clientEscapeRules,
];
