import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS, HARDLINE } from './detect-keys.js';
import { isBlockDevice, isRiskyDevice } from './detect-paths.js';
import { operands, shortLetters } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * Hardline families: commands with no recovery path (disk formats and wipes, raw writes to
 * block devices, killing every process, powering the host off). Root/system/home deletes live
 * with the other `rm` rules in detect-file-rules.ts.
 */

const DISKUTIL_VERBS = /^(?:erase|zero|random|secureerase|reformat|partitiondisk)/;

function anyBlockDevice(ctx: RuleContext): boolean {
  return operands(ctx.seg.argl).some((arg) => isBlockDevice(arg));
}

function formatWithDevice(ctx: RuleContext): void {
  if (anyBlockDevice(ctx)) ctx.hardline(HARDLINE.mkfs);
  else ctx.danger(DANGEROUS.formatFs);
}

function diskutil(ctx: RuleContext): void {
  const sub = operands(ctx.seg.argl)[0];
  if (sub !== undefined && DISKUTIL_VERBS.test(sub)) ctx.hardline(HARDLINE.mkfs);
}

function wipefs(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  const letters = shortLetters(argv);
  const dryRun = letters.includes('n') || argl.includes('--no-act');
  const all = letters.includes('a') || argl.includes('--all');
  if (all && !dryRun && anyBlockDevice(ctx)) ctx.hardline(HARDLINE.wipeDevice);
  else ctx.danger(DANGEROUS.deviceWipe);
}

function sgdisk(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  const letters = shortLetters(argv);
  const zap = /[Zo]/.test(letters) || argl.includes('--zap-all') || argl.includes('--clear');
  if (zap && anyBlockDevice(ctx)) ctx.hardline(HARDLINE.wipeDevice);
  else ctx.danger(DANGEROUS.deviceWipe);
}

function deviceOnly(ctx: RuleContext): void {
  if (anyBlockDevice(ctx)) ctx.hardline(HARDLINE.wipeDevice);
  else if (ctx.seg.family === 'blkdiscard') ctx.danger(DANGEROUS.deviceWipe);
  else if (operands(ctx.seg.argl).some((arg) => isRiskyDevice(arg))) ctx.danger(DANGEROUS.deviceWipe);
}

function dd(ctx: RuleContext): void {
  for (const arg of ctx.seg.argl) {
    if (arg.startsWith('if=')) ctx.danger(DANGEROUS.diskCopy);
    if (!arg.startsWith('of=')) continue;
    const target = arg.slice(3);
    if (isBlockDevice(target)) ctx.hardline(HARDLINE.ddDevice);
    else if (isRiskyDevice(target)) ctx.danger(DANGEROUS.deviceWrite);
  }
}

/** Integer arithmetic of `$((…))` / `$[…]`: + - * / % ~ and parentheses; undefined otherwise. */
export function evalArithmetic(expression: string): number | undefined {
  const tokens = expression.match(/\d+|[-+*/%~()]|\S/g) ?? [];
  let at = 0;
  const primary = (): number | undefined => {
    const token = tokens[at++];
    if (token === undefined) return undefined;
    if (/^\d+$/.test(token)) return Number.parseInt(token, 10);
    if (token === '-' || token === '+' || token === '~') {
      const value = primary();
      if (value === undefined) return undefined;
      return token === '-' ? -value : token === '~' ? ~value : value;
    }
    if (token === '(') {
      const value = sum();
      return tokens[at++] === ')' ? value : undefined;
    }
    return undefined;
  };
  const product = (): number | undefined => {
    let value = primary();
    while (value !== undefined && (tokens[at] === '*' || tokens[at] === '/' || tokens[at] === '%')) {
      const op = tokens[at++];
      const right = primary();
      if (right === undefined || (op !== '*' && right === 0)) return undefined;
      value = op === '*' ? value * right : op === '/' ? Math.trunc(value / right) : value % right;
    }
    return value;
  };
  const sum = (): number | undefined => {
    let value = product();
    while (value !== undefined && (tokens[at] === '+' || tokens[at] === '-')) {
      const op = tokens[at++];
      const right = product();
      if (right === undefined) return undefined;
      value = op === '+' ? value + right : value - right;
    }
    return value;
  };
  if (tokens.length === 0 || tokens.length > 64) return undefined;
  const value = sum();
  return at === tokens.length ? value : undefined;
}

/** `-1`, `-01`, `$((-1))`, `$[0-1]`, `$((~0))`, `$(echo -1)`: every spelling of pid -1. */
function isMinusOne(ctx: RuleContext, text: string, word: ShellWord | undefined): boolean {
  if (/^-0*1$/.test(text)) return true;
  const arithmetic = /^\$\(\((.*)\)\)$/.exec(text) ?? /^\$\[(.*)\]$/.exec(text);
  if (arithmetic !== null) return evalArithmetic(arithmetic[1] as string) === -1;
  const sub = word?.subs[0];
  if (word !== undefined && word.subs.length === 1 && sub !== undefined && /^(?:\$\(|`)/.test(text)) {
    const inner = ctx.segmentsOf(sub.list);
    const only = inner[0];
    if (inner.length === 1 && only !== undefined && (only.verb === 'echo' || only.verb === 'printf'))
      return /^-0*1$/.test(only.argv.filter((a) => a !== '-n').join(''));
  }
  return false;
}

/** `kill … -1` signals every process the user may signal. */
function kill(ctx: RuleContext): void {
  const argv = ctx.seg.argl;
  const minusOne = (i: number): boolean => isMinusOne(ctx, argv[i] as string, ctx.seg.args[i]);
  if (argv.length === 1 && argv[0] === '-1') {
    ctx.hardline(HARDLINE.killAll);
    return;
  }
  let signalSeen = false;
  let pids = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (pids) {
      if (minusOne(i)) ctx.hardline(HARDLINE.killAll);
      continue;
    }
    if (arg === '--') {
      pids = true;
    } else if (arg === '-l' || arg === '-L' || arg === '--list' || arg === '--table') {
      return;
    } else if (arg === '-s' || arg === '-n' || arg === '--signal') {
      i += 1;
      signalSeen = true;
    } else if (arg.startsWith('-') && !signalSeen) {
      signalSeen = true;
    } else if (arg.startsWith('-') && minusOne(i)) {
      ctx.hardline(HARDLINE.killAll);
      pids = true;
    } else {
      pids = true;
      if (minusOne(i)) ctx.hardline(HARDLINE.killAll);
    }
  }
}

function runlevel(key: string): (ctx: RuleContext) => void {
  return (ctx) => {
    const level = operands(ctx.seg.argl)[0];
    if (level === '0' || level === '6') ctx.hardline(key);
    else if (level === '1' || level === 's' || level === 'single' || level === 'emergency')
      ctx.hardline(HARDLINE.systemctlIsolate);
  };
}

export const hardlineRules: readonly VerbRules[] = [
  { verbs: ['mkfs', 'mke2fs'], run: (ctx) => ctx.hardline(HARDLINE.mkfs) },
  { verbs: ['mkswap', 'newfs'], run: formatWithDevice },
  { verbs: ['diskutil'], run: diskutil },
  { verbs: ['wipefs'], run: wipefs },
  { verbs: ['sgdisk'], run: sgdisk },
  { verbs: ['blkdiscard', 'shred'], run: deviceOnly },
  { verbs: ['dd'], run: dd },
  { verbs: ['kill'], run: kill },
  { verbs: ['shutdown', 'reboot', 'halt', 'poweroff'], run: (ctx) => ctx.hardline(HARDLINE.shutdown) },
  { verbs: ['init'], run: runlevel(HARDLINE.init) },
  { verbs: ['telinit'], run: runlevel(HARDLINE.telinit) },
];
