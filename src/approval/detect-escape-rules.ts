import { clientEscapeRules } from './detect-client-escape-rules.js';
import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { optionCommand, SSH_PROGRAMS, writesOutside } from './detect-option-command.js';
import { isSensitiveWriteTarget } from './detect-paths.js';
import { isAcceptedProgram } from './detect-programs.js';
import { sedRules } from './detect-sed-rules.js';
import { tarRules } from './detect-tar-rules.js';
import { operands, resolveLongOption } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * Programs with a way out to a shell in their options or scripts: sed `e` and `s///e`, tar
 * `--checkpoint-action=exec` / `--to-command` / `-I`, zip `-TT`, rsync `-e`, scp `-S`, tcpdump
 * `-z`, apt `-o …Invoke`, find `-fprint`, PowerShell `-File`. An option that names one
 * well-known program with plain arguments (`tar -I zstd`, `rsync -e 'ssh -p 2222'`) is
 * understood; anything else needs approval, and the command it names is scanned.
 */

// --- zip, rsync, scp, tcpdump, apt, wget, less ----------------------------------------------------

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
  ...sedRules,
  ...tarRules,
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
