import type { Rule, RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { literalOutput } from './detect-literal-output.js';
import { stdinUse } from './detect-pipeline-rules.js';
import { subcommandRules } from './detect-subcommands.js';
import { operands } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * Arguments whose value decides what a command destroys or overwrites, when that value is only
 * known at run time: `rm -f "$f"`, `kill $pid` (could be `-1`), `chmod 777 $(cat list)`,
 * `> "$out"`, `mv a "$dest"`. Globs stay accepted (`rm -f build/*.o`); expansions do not.
 */

/** Every argument is a target, an option or a signal: any unknown one may be the worst. */
const TARGET_VERBS = [
  'rm',
  'rmdir',
  'unlink',
  'shred',
  'truncate',
  'wipefs',
  'blkdiscard',
  'sgdisk',
  'sfdisk',
  'fdisk',
  'parted',
  'mkswap',
  'mkfs',
  'mke2fs',
  'dd',
  'kill',
  'pkill',
  'killall',
  'chmod',
  'chown',
  'chgrp',
  'chattr',
  'setfacl',
  'userdel',
  'usermod',
  'groupdel',
  'passwd',
  'fuser',
  'zpool',
  'zfs',
  'lvremove',
  'vgremove',
  'pvremove',
  'cryptsetup',
  'mv',
];
/** `$!` (the last background job) and `$$` (this shell) are real pids, never `-1`. */
const KNOWN_PIDS = new Set(['$!', '$$']);
const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

/** `kill -0 …` / `kill -s 0 …` only asks whether a process exists: it signals nothing. */
function probesOnly(argl: readonly string[]): boolean {
  const first = argl[0];
  if (first === '-0' || first === '-s0') return true;
  return (first === '-s' || first === '--signal' || first === '-n') && argl[1] === '0';
}

function targets(ctx: RuleContext): void {
  const { seg } = ctx;
  const kill = seg.verb === 'kill';
  if (kill && probesOnly(seg.argl)) return;
  for (const word of seg.args) {
    if (!word.expanded) continue;
    if (kill && KNOWN_PIDS.has(word.text)) continue;
    ctx.danger(DANGEROUS.unresolvedArgument);
    return;
  }
}

/** Operands of cp/mv/ln/install (values of `-m`, `-o`… skipped) and the destination word. */
function copyWords(args: readonly ShellWord[]): { files: ShellWord[]; dest: ShellWord | undefined } {
  const files: ShellWord[] = [];
  let options = true;
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] as ShellWord;
    const text = word.text;
    if (options && text === '--') options = false;
    else if (options && (text === '-t' || text === '--target-directory')) return { files, dest: args[i + 1] };
    else if (options && text.startsWith('--target-directory=')) return { files, dest: word };
    else if (options && /^-[^-]*t$/.test(text)) return { files, dest: args[i + 1] };
    else if (options && /^-[^-]*[SmogZ]$/.test(text)) i += 1;
    else if (options && text.startsWith('-') && text.length > 1) continue;
    else files.push(word);
  }
  return { files, dest: files[files.length - 1] };
}

/** Directories on a usual PATH: a program put there under a new name shadows another. */
const PATH_DIR =
  /^(?:\/usr\/local\/s?bin|\/usr\/s?bin|\/s?bin|~\/bin|~\/\.local\/bin|\/opt\/[^/]+\/bin)\/[^/]+$/;

function baseOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function copyDestination(ctx: RuleContext): void {
  const { files, dest } = copyWords(ctx.seg.args);
  const source = files.length === 2 ? files[0]?.text : undefined;
  // `cp /bin/rm ~/.local/bin/ls`: every later `ls` runs rm.
  if (
    dest !== undefined &&
    source !== undefined &&
    PATH_DIR.test(dest.text) &&
    baseOf(dest.text) !== baseOf(source)
  )
    ctx.danger(DANGEROUS.reboundName);
  if (dest?.expanded === true) ctx.danger(DANGEROUS.unresolvedWriteTarget);
  if (dest !== undefined && !dest.expanded && optionLike(dest.text)) ctx.danger(DANGEROUS.optionNamedFile);
}

function tee(ctx: RuleContext): void {
  for (const word of ctx.seg.args) {
    if (processSink(ctx, word)) continue;
    if (word.expanded && !word.text.startsWith('-')) {
      ctx.danger(DANGEROUS.unresolvedWriteTarget);
      return;
    }
  }
}

/** A path whose last component starts with `-`: a glob over its directory hands it out as an option. */
function optionLike(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.length > 1 && base.startsWith('-');
}

/** `touch -- -rf`, `touch ./--checkpoint-action=exec=sh x.sh`, `mkdir ./-rf`. */
function createsOptionFile(ctx: RuleContext): void {
  const { argv } = ctx.seg;
  const files = operands(argv);
  const afterDashes = argv.indexOf('--');
  const extra = afterDashes >= 0 ? argv.slice(afterDashes + 1).filter((arg) => arg.startsWith('-')) : [];
  if ([...files, ...extra].some((file) => optionLike(file))) ctx.danger(DANGEROUS.optionNamedFile);
}

/**
 * `> >(sh)`, `tee >(bash)`: output written into a process substitution is that command's stdin,
 * like a pipe. True when the word is one (judged here: code for a shell is code from data).
 */
function processSink(ctx: RuleContext, word: ShellWord): boolean {
  const sub = word.subs[0];
  if (word.subs.length !== 1 || sub?.kind !== 'process-out' || !word.text.startsWith('>(')) return false;
  const readers = ctx.segmentsOf(sub.list);
  const reader = readers[0];
  if (reader === undefined) return true;
  const use = stdinUse(reader);
  if (use === 'shell' || use === 'code' || use === 'parallel' || use === 'cron') {
    const written = literalOutput(ctx.seg);
    if (written === undefined) ctx.danger(DANGEROUS.codeFromData);
    else for (const text of written) ctx.scanShell(text);
  }
  return true;
}

/** Output redirections to a file named by an expansion, or named like an option. */
function writeTargets(ctx: RuleContext): void {
  for (const redirect of ctx.seg.redirects) {
    if (!WRITE_OPS.has(redirect.op) && redirect.op !== '>&') continue;
    const target = redirect.target;
    if (target === undefined) continue;
    if (redirect.op === '>&' && /^(?:[0-9]+|-)$/.test(target.text)) continue;
    if (processSink(ctx, target)) continue;
    if (target.expanded) ctx.danger(DANGEROUS.unresolvedWriteTarget);
    else if (optionLike(target.text)) ctx.danger(DANGEROUS.optionNamedFile);
  }
}

export const unresolvedGenericRules: readonly Rule[] = [writeTargets];

export const unresolvedRules: readonly VerbRules[] = [
  { verbs: TARGET_VERBS, run: targets },
  { verbs: ['cp', 'mv', 'ln', 'install'], run: copyDestination },
  { verbs: ['tee'], run: tee },
  { verbs: ['touch', 'mkdir', 'mkfifo', 'mknod'], run: createsOptionFile },
  ...subcommandRules,
];
