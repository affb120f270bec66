import type { RuleContext, VerbRules } from './detect-context.js';
import { chmodMode } from './detect-file-rules.js';
import { DANGEROUS, HARDLINE } from './detect-keys.js';
import { classifyDeleteTarget } from './detect-paths.js';
import { longOptions, operands, shortLetters } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * Destroying data without `rm`: moving home or a system directory away, `rsync --delete` onto
 * them, `find -exec`/`xargs` running a wiping command, recursive permission changes of whole
 * trees, setuid bits, archives extracted over the system. Writes into sensitive files by any
 * program (truncate, sort -o, dd of=, curl -o…) are judged by the path rules.
 */

/** Programs that destroy the content of the files they are given. */
const WIPERS = new Set(['shred', 'truncate', 'unlink', 'wipe', 'srm', 'dd', 'rmdir']);

function mv(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  const t = ctx.seg.argl.findIndex((a) => a === '-t' || a === '--target-directory');
  const sources = t >= 0 ? ops.filter((op) => op !== ctx.seg.argl[t + 1]) : ops.slice(0, -1);
  for (const source of sources) {
    if (classifyDeleteTarget(source) !== 'other') ctx.hardline(HARDLINE.moveSystem);
  }
}

/** `rsync --delete SRC DEST` empties DEST of everything SRC lacks. */
function rsync(ctx: RuleContext): void {
  const { argl } = ctx.seg;
  if (!argl.some((a) => a.startsWith('--delete') || a === '--del' || a === '--remove-source-files')) return;
  const ops = operands(argl);
  const dest = ops[ops.length - 1];
  if (dest === undefined || ops.length < 2) return;
  const target = classifyDeleteTarget(dest.replace(/^[^/:~]*:(?=[/~])/, ''));
  if (target === 'root') ctx.hardline(HARDLINE.rootDelete);
  else if (target === 'system') ctx.hardline(HARDLINE.systemDirDelete);
  else if (target === 'home') ctx.hardline(HARDLINE.homeDelete);
}

function commandName(word: ShellWord | undefined): string {
  const text = word?.text.toLowerCase() ?? '';
  return text.slice(text.lastIndexOf('/') + 1);
}

/** `find … -exec shred {} ;`, `-execdir truncate -s0 {} +`. */
function findExec(ctx: RuleContext): void {
  const { args, argl } = ctx.seg;
  for (let i = 0; i < argl.length; i += 1) {
    const arg = argl[i] as string;
    if (arg !== '-exec' && arg !== '-execdir' && arg !== '-ok' && arg !== '-okdir') continue;
    if (WIPERS.has(commandName(args[i + 1]))) ctx.danger(DANGEROUS.destructiveExec);
  }
}

const XARGS_VALUES = new Set([
  '-a',
  '-d',
  '-E',
  '-I',
  '-L',
  '-n',
  '-P',
  '-s',
  '--arg-file',
  '--delimiter',
  '--max-args',
  '--max-procs',
  '--replace',
]);

function xargs(ctx: RuleContext): void {
  const { args, argv } = ctx.seg;
  let i = 0;
  while (i < argv.length && (argv[i] as string).startsWith('-') && argv[i] !== '--') {
    i += XARGS_VALUES.has(argv[i] as string) ? 2 : 1;
  }
  if (argv[i] === '--') i += 1;
  if (WIPERS.has(commandName(args[i]))) ctx.danger(DANGEROUS.destructiveExec);
}

function recursive(argv: readonly string[]): boolean {
  return shortLetters(argv).includes('R') || longOptions(argv).includes('--recursive');
}

/** Recursive chmod/chown/chgrp/setfacl of `/`, a system directory or home. */
function permissionTree(ctx: RuleContext, files: readonly string[]): void {
  for (const file of files) {
    const target = classifyDeleteTarget(file);
    if (target === 'root') ctx.hardline(HARDLINE.permRoot);
    else if (target === 'system' || target === 'home') ctx.danger(DANGEROUS.permTree);
  }
}

/** `000`, `a-rwx`, `a=`: nobody may read, write or enter anything any more. */
function removesAll(mode: string): boolean {
  if (/^[0-7]{1,4}$/.test(mode)) return (Number.parseInt(mode, 8) & 0o777) === 0;
  return /^(?:a|ugo)?(?:-rwx[Xst]*|=)$/.test(mode);
}

/** `u+s`, `g+s`, `+s`, `4755`, `2755`: the program runs with its owner's or group's rights. */
function setsId(mode: string): boolean {
  if (/^[0-7]{4}$/.test(mode)) return (Number.parseInt(mode[0] as string, 8) & 6) !== 0;
  return mode.split(',').some((clause) => {
    const who = /^[ugoa]*/.exec(clause)?.[0] ?? '';
    if (who !== '' && !/[uga]/.test(who)) return false;
    return /[+=][rwxXt]*s/.test(clause);
  });
}

function chmod(ctx: RuleContext): void {
  const { mode, files } = chmodMode(ctx.seg.argv);
  if (mode === undefined) return;
  if (setsId(mode)) ctx.danger(DANGEROUS.setuid);
  if (!recursive(ctx.seg.argv)) return;
  if (removesAll(mode)) ctx.danger(DANGEROUS.chmodNone);
  permissionTree(
    ctx,
    files.map((f) => f.toLowerCase()),
  );
}

function chownLike(ctx: RuleContext): void {
  if (!recursive(ctx.seg.argv)) return;
  permissionTree(ctx, operands(ctx.seg.argl).slice(1));
}

function setfacl(ctx: RuleContext): void {
  if (!recursive(ctx.seg.argv)) return;
  const { argl } = ctx.seg;
  const files: string[] = [];
  for (let i = 0; i < argl.length; i += 1) {
    const arg = argl[i] as string;
    if (/^-[a-z]*[mxMX]$/.test(arg) || arg === '--modify' || arg === '--remove' || arg === '--set') i += 1;
    else if (!arg.startsWith('-')) files.push(arg);
  }
  permissionTree(ctx, files);
}

/** Top-level directories whose contents an archive must not be unpacked over. */
const SYSTEM_EXTRACT = /^\/(?:etc|usr|bin|sbin|lib|lib32|lib64|libx32|boot|var|root)?\/?$/;

function extractsOverSystem(dir: string | undefined): boolean {
  if (dir === undefined) return false;
  const trimmed = dir.replace(/\/+$/, '');
  return SYSTEM_EXTRACT.test(trimmed === '' ? '/' : trimmed);
}

/** `tar -x -C /`, `unzip -d /usr`, `7z x -o/etc`. */
function extractInto(ctx: RuleContext): void {
  const { argv, argl, verb } = ctx.seg;
  let dir: string | undefined;
  let extracting = verb === 'unzip';
  argv.forEach((arg, i) => {
    const lower = argl[i] as string;
    if (verb === 'unzip' && arg === '-d') dir = argl[i + 1];
    if (verb.endsWith('tar')) {
      if (arg === '-C' || lower === '--directory') dir = argl[i + 1];
      else if (lower.startsWith('--directory=')) dir = lower.slice(12);
      else if (/^-[a-zA-Z]*C$/.test(arg) && !arg.startsWith('--')) dir = argl[i + 1];
      if (
        lower === '--extract' ||
        lower === '--get' ||
        (/^-?[a-zA-Z]+$/.test(arg) && /x/.test(arg) && (i === 0 || arg.startsWith('-')))
      )
        extracting = true;
    }
    if (verb.startsWith('7z')) {
      if (lower === 'x' || lower === 'e') extracting = true;
      if (lower.startsWith('-o')) dir = lower.slice(2);
    }
  });
  if (extracting && extractsOverSystem(dir)) ctx.danger(DANGEROUS.systemBinaryWrite);
}

export const destroyRules: readonly VerbRules[] = [
  { verbs: ['mv'], run: mv },
  { verbs: ['rsync'], run: rsync },
  { verbs: ['find', 'gfind'], run: findExec },
  { verbs: ['xargs'], run: xargs },
  { verbs: ['chmod'], run: chmod },
  { verbs: ['chown', 'chgrp'], run: chownLike },
  { verbs: ['setfacl'], run: setfacl },
  { verbs: ['tar', 'gtar', 'bsdtar', 'unzip', '7z', '7za', '7zz'], run: extractInto },
];
