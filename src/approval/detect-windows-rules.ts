import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';

/** Windows cmd and PowerShell destructive forms (also when typed into a POSIX shell). */

type Host = 'posix' | 'cmd' | 'powershell';

interface LooseCommand {
  readonly verb: string;
  readonly args: readonly string[];
  /** Fed by the previous command through `|`. */
  readonly piped: boolean;
}

const PS_DELETE_VERBS = new Set(['remove-item', 'rmdir', 'erase', 'del', 'rd', 'ri', 'rm']);
const CMD_DELETE_VERBS = new Set(['del', 'erase', 'rd', 'rmdir']);
const DOWNLOAD_VERBS = new Set([
  'iwr',
  'irm',
  'invoke-webrequest',
  'invoke-restmethod',
  'curl',
  'wget',
  'start-bitstransfer',
]);

/** `-Force`, `-fo`, `-Force:$true` … (PowerShell accepts unambiguous prefixes). */
function psSwitch(args: readonly string[], name: string, minLength: number): boolean {
  return args.some((arg) => {
    if (!arg.startsWith('-')) return false;
    const bare = arg.slice(1).split(':')[0] ?? '';
    return bare.length >= minLength && name.startsWith(bare);
  });
}

function hasDownload(args: readonly string[]): boolean {
  return args.some(
    (arg) => DOWNLOAD_VERBS.has(arg) || arg.includes('downloadstring') || arg.includes('downloadfile'),
  );
}

/** One Windows command, by verb (lower-case, `.exe` removed). */
export function windowsCommand(ctx: RuleContext, verb: string, args: readonly string[], host: Host): void {
  switch (verb) {
    case 'del':
    case 'erase':
    case 'rd':
    case 'rmdir':
      if (args.some((arg) => /^\/[sq](?:\/[sq])?$/.test(arg))) ctx.danger(DANGEROUS.winDeleteSwitch);
      if (host === 'powershell' && (psSwitch(args, 'recurse', 1) || psSwitch(args, 'force', 2))) {
        ctx.danger(DANGEROUS.psRemoveItem);
      }
      return;
    case 'ri':
    case 'rm':
      if (host === 'powershell' && (psSwitch(args, 'recurse', 1) || psSwitch(args, 'force', 2))) {
        ctx.danger(DANGEROUS.psRemoveItem);
      }
      return;
    case 'remove-item':
      if (psSwitch(args, 'recurse', 1) || psSwitch(args, 'force', 2)) ctx.danger(DANGEROUS.psRemoveItem);
      return;
    case 'taskkill':
      if (args.includes('/f')) ctx.danger(DANGEROUS.taskkill);
      return;
    case 'stop-process':
    case 'spps':
      if (psSwitch(args, 'force', 1)) ctx.danger(DANGEROUS.stopProcess);
      return;
    case 'format-volume':
      ctx.danger(DANGEROUS.formatVolume);
      return;
    case 'clear-disk':
      ctx.danger(DANGEROUS.clearDisk);
      return;
    case 'diskpart':
      ctx.danger(DANGEROUS.diskpart);
      return;
    case 'format':
    case 'format.com':
      if (verb === 'format.com' || args.some((arg) => /^[a-z]:\\?$/.test(arg)))
        ctx.danger(DANGEROUS.formatDrive);
      return;
    case 'cipher':
      if (args.some((arg) => arg === '/w' || arg.startsWith('/w:'))) ctx.danger(DANGEROUS.cipherWipe);
      return;
    case 'icacls':
      if (args.some((arg) => arg.includes('everyone:') || arg.includes('*s-1-1-0:')))
        ctx.danger(DANGEROUS.icaclsEveryone);
      if (args.includes('/reset')) ctx.danger(DANGEROUS.icaclsReset);
      return;
    case 'vssadmin':
      if (args.includes('delete')) ctx.danger(DANGEROUS.vssadmin);
      return;
    case 'wbadmin':
      if (args.includes('delete')) ctx.danger(DANGEROUS.wbadmin);
      return;
    case 'bcdedit':
      if (args.some((arg) => arg === '/set' || arg === '/deletevalue' || arg === '/delete'))
        ctx.danger(DANGEROUS.bcdedit);
      return;
    case 'reg':
      if (args[0] === 'delete') ctx.danger(DANGEROUS.regDelete);
      return;
    case 'remove-itemproperty':
    case 'rp':
      if (psSwitch(args, 'force', 1)) ctx.danger(DANGEROUS.regValueDelete);
      return;
    case 'stop-service':
    case 'spsv':
      if (psSwitch(args, 'force', 1)) ctx.danger(DANGEROUS.stopService);
      return;
    case 'sc':
      if (args[0] === 'stop' || args[0] === 'delete') ctx.danger(DANGEROUS.scService);
      return;
    case 'iex':
    case 'invoke-expression':
      ctx.danger(hasDownload(args) ? DANGEROUS.psRemoteIex : DANGEROUS.psIex);
      return;
    default:
  }
}

/** Splits cmd or PowerShell text into loose commands: separators and quotes, nothing more. */
export function looseCommands(text: string, separators: string): LooseCommand[] {
  const out: LooseCommand[] = [];
  let words: string[] = [];
  let word = '';
  let quote = '';
  let piped = false;
  const flushWord = (): void => {
    if (word !== '') words.push(word.toLowerCase());
    word = '';
  };
  const flushCommand = (nextPiped: boolean): void => {
    flushWord();
    if (words.length > 0) out.push({ verb: stripExe(words[0] as string), args: words.slice(1), piped });
    words = [];
    piped = nextPiped;
  };
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] as string;
    if (quote !== '') {
      if (c === quote) quote = '';
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '|' && text[i + 1] !== '|') {
      flushCommand(true);
    } else if (separators.includes(c) || c === '\n') {
      flushCommand(false);
    } else if (c === ' ' || c === '\t' || c === '(' || c === ')' || c === '{' || c === '}' || c === ',') {
      flushWord();
    } else {
      word += c;
    }
  }
  flushCommand(false);
  return out;
}

function stripExe(verb: string): string {
  const slash = Math.max(verb.lastIndexOf('\\'), verb.lastIndexOf('/'));
  const base = slash >= 0 ? verb.slice(slash + 1) : verb;
  return base.endsWith('.exe') ? base.slice(0, -4) : base;
}

function scanPowerShell(ctx: RuleContext, text: string): void {
  let download = false;
  for (const command of looseCommands(text, ';&')) {
    if (!command.piped) download = false;
    if (download && (command.verb === 'iex' || command.verb === 'invoke-expression'))
      ctx.danger(DANGEROUS.psRemotePipe);
    if (PS_DELETE_VERBS.has(command.verb)) ctx.danger(DANGEROUS.psDelete);
    windowsCommand(ctx, command.verb, command.args, 'powershell');
    if (DOWNLOAD_VERBS.has(command.verb) || hasDownload(command.args)) download = true;
  }
}

const PS_VALUE_PREFIXES = [
  '-ex',
  '-ep',
  '-w',
  '-v',
  '-config',
  '-input',
  '-output',
  '-o',
  '-settings',
  '-custom',
];

function powershell(ctx: RuleContext): void {
  const { argl, argv } = ctx.seg;
  for (let i = 0; i < argl.length; i += 1) {
    const arg = argl[i] as string;
    if (arg === '-e' || arg === '-ec' || (arg.startsWith('-en') && '-encodedcommand'.startsWith(arg))) {
      ctx.danger(DANGEROUS.psEncoded);
      return;
    }
    if (arg.startsWith('-c') && '-command'.startsWith(arg)) {
      scanPowerShell(ctx, argv.slice(i + 1).join(' '));
      return;
    }
    if (arg.startsWith('-f') && '-file'.startsWith(arg)) return;
    if (arg.startsWith('-')) {
      if (PS_VALUE_PREFIXES.some((prefix) => arg.startsWith(prefix))) i += 1;
      continue;
    }
    scanPowerShell(ctx, argv.slice(i).join(' '));
    return;
  }
}

function cmd(ctx: RuleContext): void {
  const { argl, argv } = ctx.seg;
  const at = argl.findIndex((arg) => arg === '/c' || arg === '/k' || arg === '/r');
  if (at < 0) return;
  for (const command of looseCommands(argv.slice(at + 1).join(' '), '&')) {
    if (CMD_DELETE_VERBS.has(command.verb)) ctx.danger(DANGEROUS.cmdDelete);
    windowsCommand(ctx, command.verb, command.args, 'cmd');
  }
}

/** Every POSIX-parsed command is also checked against the Windows verbs (generic rule). */
export function windowsVerbRule(ctx: RuleContext): void {
  windowsCommand(ctx, ctx.seg.verb, ctx.seg.argl, 'posix');
}

export const windowsRules: readonly VerbRules[] = [
  { verbs: ['powershell'], run: powershell },
  { verbs: ['cmd'], run: cmd },
];
