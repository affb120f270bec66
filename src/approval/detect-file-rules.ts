import { accessFindings, EMPTY_ENV, holdsSecrets } from './detect-access-rules.js';
import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS, HARDLINE } from './detect-keys.js';
import { devTcpRule, wrappedRemotePackage } from './detect-network-rules.js';
import {
  classifyDeleteTarget,
  isBlockDevice,
  isHermesConfigPath,
  isHermesHomePath,
  isProjectEnvOrConfig,
  isRiskyDevice,
  isSensitiveUserPath,
  isSensitiveWriteTarget,
  isSystemConfigPath,
} from './detect-paths.js';
import { collapsePath } from './sensitive-paths.js';
import { longOptions, operands, shortLetters } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/** A file in a scratch directory (`/tmp/x`, `/var/tmp/x`), `..` resolved: deleting it costs nothing. */
function isScratchFile(path: string): boolean {
  const collapsed = collapsePath(path);
  return /^\/(?:var\/)?tmp\/[^/]/.test(collapsed) && !/[*?[]/.test(path);
}

/** rm: root/system/home deletes are hardline; absolute paths outside scratch dirs and recursion need approval. */
function rm(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  let options = true;
  let sawOperand = false;
  let recursive = ctx.seg.verb === 'rimraf' ? 'short' : '';
  let noPreserveRoot = false;
  let absolute = false;
  let outsideScratch = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const lower = argl[i] as string;
    if (options && arg === '--') {
      options = false;
    } else if (options && arg.startsWith('--')) {
      if (lower.length >= 5 && '--recursive'.startsWith(lower)) recursive ||= sawOperand ? 'after' : 'long';
      if (lower === '--no-preserve-root') noPreserveRoot = true;
    } else if (options && arg.startsWith('-') && arg.length > 1) {
      if (/[rR]/.test(arg)) recursive ||= sawOperand ? 'after' : 'short';
    } else {
      sawOperand = true;
      if (lower.startsWith('/')) absolute = true;
      if (lower.startsWith('/') && !isScratchFile(lower)) outsideScratch = true;
      const target = classifyDeleteTarget(lower);
      if (target === 'root') ctx.hardline(HARDLINE.rootDelete);
      else if (target === 'system') ctx.hardline(HARDLINE.systemDirDelete);
      else if (target === 'home') ctx.hardline(HARDLINE.homeDelete);
      if (isHermesHomePath(lower)) ctx.danger(DANGEROUS.hermesHomeEdit);
    }
  }
  if (noPreserveRoot && recursive !== '') ctx.hardline(HARDLINE.rootDelete);
  // A single scratch file (`rm -f /tmp/x`) is everyday work; a recursive delete of anything absolute asks.
  if (outsideScratch || (absolute && recursive !== '')) ctx.danger(DANGEROUS.rmRootPath);
  if (recursive === 'short') ctx.danger(DANGEROUS.rmRecursive);
  else if (recursive === 'long') ctx.danger(DANGEROUS.rmRecursiveLong);
  else if (recursive === 'after') ctx.danger(DANGEROUS.rmRecursiveAfter);
}

/** Deleting, truncating or opening the gateway's own files in an editor. */
function touchesHermesHome(ctx: RuleContext): void {
  if (operands(ctx.seg.argl).some((arg) => isHermesHomePath(arg))) ctx.danger(DANGEROUS.hermesHomeEdit);
}

const CHMOD_MODE = /^(?:[0-7]{3,4}|[ugoa]*[-+=][rwxXst]*(?:[-+=][rwxXst]*)*(?:,[ugoa]*[-+=][rwxXst]*)*)$/;

/** The mode operand of chmod (options come first; `-w` style modes are modes). */
export function chmodMode(argv: readonly string[]): { mode: string | undefined; files: string[] } {
  let mode: string | undefined;
  const files: string[] = [];
  let options = true;
  for (const arg of argv) {
    if (options && arg === '--') options = false;
    else if (options && arg.startsWith('--')) continue;
    else if (options && mode === undefined && /^-[rwxXst]+$/.test(arg)) mode = arg;
    else if (options && arg.startsWith('-') && arg.length > 1) continue;
    else if (mode === undefined) mode = arg;
    else files.push(arg);
  }
  return { mode, files };
}

function worldWritable(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) return '2367'.includes(mode.slice(-1));
  if (!CHMOD_MODE.test(mode)) return false;
  return mode.split(',').some((clause) => {
    const who = /^[ugoa]*/.exec(clause)?.[0] ?? '';
    if (!who.includes('o') && !who.includes('a')) return false;
    return /[+=][rwxXst]*w/.test(clause);
  });
}

/** The mode makes a file executable (`+x`, `u+x`, `755`…). */
export function addsExecute(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) return /[1357]/.test(mode.slice(-3));
  return CHMOD_MODE.test(mode) && /[+=][rwXst]*x/.test(mode);
}

function chmod(ctx: RuleContext): void {
  const { mode } = chmodMode(ctx.seg.argv);
  if (mode === undefined || !worldWritable(mode)) return;
  const long = longOptions(ctx.seg.argv).includes('--recursive');
  ctx.danger(long ? DANGEROUS.worldWritableLong : DANGEROUS.worldWritable);
}

function chown(ctx: RuleContext): void {
  const { argv } = ctx.seg;
  const short = shortLetters(argv).includes('R');
  const long = longOptions(argv).some((opt) => opt.startsWith('--recur'));
  if (!short && !long) return;
  const owner = operands(ctx.seg.argl)[0];
  if (owner === undefined || !/^(?:root|0)(?:[:.]|$)/.test(owner)) return;
  ctx.danger(short ? DANGEROUS.chownRoot : DANGEROUS.chownRootLong);
}

function tee(ctx: RuleContext): void {
  for (const target of operands(ctx.seg.argl)) {
    if (isSensitiveWriteTarget(target)) ctx.danger(DANGEROUS.teeSystem);
    else if (isRiskyDevice(target)) ctx.danger(DANGEROUS.deviceWrite);
    if (isProjectEnvOrConfig(target)) ctx.danger(DANGEROUS.teeProject);
  }
}

/** Destination of cp/mv/install/ln: `-t DIR` / `--target-directory=DIR`, else the last operand. */
function copyDestination(argv: readonly string[], argl: readonly string[]): string | undefined {
  const files: string[] = [];
  let options = true;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const lower = argl[i] as string;
    if (options && arg === '--') options = false;
    else if (options && lower.startsWith('--target-directory='))
      return lower.slice('--target-directory='.length);
    else if (options && (lower === '-t' || lower === '--target-directory')) return argl[i + 1];
    else if (options && /^-[^-]*t$/.test(arg)) return argl[i + 1];
    else if (options && /^-[SmogZ]$/.test(arg)) i += 1;
    else if (options && arg.startsWith('-') && arg.length > 1) continue;
    else files.push(lower);
  }
  return files.length >= 2 ? files[files.length - 1] : undefined;
}

function copyInto(ctx: RuleContext): void {
  const dest = copyDestination(ctx.seg.argv, ctx.seg.argl);
  if (dest === undefined) return;
  if (isBlockDevice(dest) || isRiskyDevice(dest)) ctx.danger(DANGEROUS.deviceWrite);
  if (isSystemConfigPath(dest)) ctx.danger(DANGEROUS.copySystem);
  if (isSensitiveUserPath(dest) || isHermesConfigPath(dest)) ctx.danger(DANGEROUS.copySensitive);
  if (isProjectEnvOrConfig(dest)) ctx.danger(DANGEROUS.copyProject);
  if (isHermesHomePath(dest)) ctx.danger(DANGEROUS.hermesHomeEdit);
}

/** sed -i / --in-place on sensitive files. */
function sed(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  let inPlace: 'short' | 'long' | undefined;
  const files: string[] = [];
  let scriptGiven = false;
  let options = true;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (options && arg === '--') {
      options = false;
    } else if (options && arg.startsWith('--')) {
      const lower = argl[i] as string;
      if (lower.startsWith('--in-place')) inPlace ??= 'long';
      if (lower === '--expression' || lower === '--file') {
        scriptGiven = true;
        i += 1;
      } else if (lower.startsWith('--expression=') || lower.startsWith('--file=')) {
        scriptGiven = true;
      }
    } else if (options && arg.startsWith('-') && arg.length > 1) {
      for (let k = 1; k < arg.length; k += 1) {
        const letter = arg[k];
        if (letter === 'i') {
          inPlace ??= 'short';
          break;
        }
        if (letter === 'e' || letter === 'f' || letter === 'l') {
          if (letter !== 'l') scriptGiven = true;
          if (k === arg.length - 1) i += 1;
          break;
        }
      }
    } else if (!scriptGiven) {
      scriptGiven = true;
    } else {
      files.push(argl[i] as string);
    }
  }
  if (inPlace === undefined) return;
  const long = inPlace === 'long';
  for (const file of files) {
    if (isSystemConfigPath(file)) ctx.danger(long ? DANGEROUS.editSystemLong : DANGEROUS.editSystem);
    if (isSensitiveUserPath(file)) ctx.danger(long ? DANGEROUS.editSensitiveLong : DANGEROUS.editSensitive);
    if (isHermesConfigPath(file)) ctx.danger(long ? DANGEROUS.editHermesLong : DANGEROUS.editHermes);
    else if (isHermesHomePath(file)) ctx.danger(DANGEROUS.hermesHomeEdit);
  }
}

/** Words of `-exec … ;` style sub-commands (find) starting after `start`. */
function execWords(words: readonly ShellWord[], start: number): { words: ShellWord[]; end: number } {
  const out: ShellWord[] = [];
  let i = start;
  for (; i < words.length; i += 1) {
    const text = (words[i] as ShellWord).text;
    if (text === ';' || text === '+') break;
    out.push(words[i] as ShellWord);
  }
  return { words: out, end: i };
}

/**
 * A starting point of `find` that is sensitive (HERMES_HOME, ~/.ssh…): `{}` in `-exec` stands
 * for files below it, so `find ~/.hermes-gateway -exec cat {} ;` is judged as `cat DIR/*`.
 */
function sensitiveStart(argl: readonly string[]): string | undefined {
  for (const arg of argl) {
    if (arg.startsWith('-') || arg === '(' || arg === '!') return undefined;
    if (holdsSecrets(arg)) return arg.replace(/\/+$/, '');
  }
  return undefined;
}

function withStart(words: readonly ShellWord[], start: string | undefined): readonly ShellWord[] {
  if (start === undefined) return words;
  return words.map((word) =>
    word.text.includes('{}') ? { ...word, text: word.text.replaceAll('{}', `${start}/*`) } : word,
  );
}

function find(ctx: RuleContext): void {
  const { args, argl } = ctx.seg;
  const start = sensitiveStart(argl);
  let dynamic = false;
  for (let i = 0; i < args.length; i += 1) {
    const lower = argl[i] as string;
    const word = args[i] as ShellWord;
    if (word.dynamic) dynamic = true;
    if (lower === '-delete') ctx.danger(DANGEROUS.findDelete);
    if (lower === '-exec' || lower === '-execdir' || lower === '-ok' || lower === '-okdir') {
      const sub = execWords(args, i + 1);
      const verb = sub.words[0]?.text.toLowerCase() ?? '';
      if (verb === 'rm' || verb.endsWith('/rm')) ctx.danger(DANGEROUS.findExecRm);
      if (sub.words.length > 0) ctx.scanWords(withStart(sub.words, start));
      i = sub.end;
    }
  }
  if (dynamic) ctx.danger(DANGEROUS.findDynamic);
}

/** xargs runs its command with input lines as extra arguments. */
function xargs(ctx: RuleContext): void {
  const { args, argv } = ctx.seg;
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i] as string;
    if (arg === '--') {
      i += 1;
      break;
    }
    if (!arg.startsWith('-') || arg === '-') break;
    if (arg.startsWith('--')) i += 1;
    else if (arg.length === 2 && 'adEILnPs'.includes(arg[1] as string)) i += 2;
    else i += 1;
  }
  const sub = args.slice(i);
  if (sub.length === 0) return;
  const verb = sub[0]?.text.toLowerCase() ?? '';
  if (verb === 'rm' || verb.endsWith('/rm')) ctx.danger(DANGEROUS.xargsRm);
  ctx.scanWords(sub);
}

export const fileRules: readonly VerbRules[] = [
  { verbs: ['rm', 'rimraf'], run: rm },
  {
    verbs: [
      'unlink',
      'truncate',
      'shred',
      'nano',
      'vi',
      'vim',
      'nvim',
      'emacs',
      'ed',
      'ex',
      'pico',
      'micro',
      'joe',
    ],
    run: touchesHermesHome,
  },
  { verbs: ['chmod'], run: chmod },
  { verbs: ['chown'], run: chown },
  { verbs: ['tee'], run: tee },
  { verbs: ['cp', 'mv', 'install', 'ln'], run: copyInto },
  { verbs: ['sed', 'gsed'], run: sed },
  { verbs: ['find', 'gfind'], run: find },
  { verbs: ['xargs'], run: xargs },
];

/**
 * Runs for every simple command: output redirections (block devices, system files, env/config
 * files), then every path the command reads or writes, judged against the shared table.
 */
export function redirectRule(ctx: RuleContext): void {
  accessFindings(ctx, EMPTY_ENV);
  devTcpRule(ctx);
  wrappedRemotePackage(ctx);
  for (const redirect of ctx.seg.redirects) {
    const op = redirect.op;
    if (op === '<' || op === '<&' || op === '<<' || op === '<<-' || op === '<<<') continue;
    const target = redirect.target?.text.toLowerCase();
    if (target === undefined || target === '' || (op === '>&' && /^(?:\d+|-)$/.test(target))) continue;
    if (isBlockDevice(target)) ctx.hardline(HARDLINE.redirectDevice);
    else if (isRiskyDevice(target)) ctx.danger(DANGEROUS.deviceWrite);
    if (isSystemConfigPath(target)) ctx.danger(DANGEROUS.systemConfig);
    if (isSensitiveWriteTarget(target) && !isBlockDevice(target)) ctx.danger(DANGEROUS.redirectSystem);
    if (isProjectEnvOrConfig(target)) ctx.danger(DANGEROUS.redirectProject);
    if (isHermesHomePath(target) && !isHermesConfigPath(target)) ctx.danger(DANGEROUS.hermesHomeEdit);
  }
}
