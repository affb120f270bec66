import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';

/** git operations that lose uncommitted work or rewrite shared history. */

const GIT_VALUE_OPTIONS = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--super-prefix',
  '--exec-path',
  '--list-cmds',
]);

function resetHard(options: readonly string[]): boolean {
  return options.some((arg) => arg === '--h' || arg === '--ha' || arg === '--har' || arg === '--hard');
}

const PUSH_VALUE_OPTIONS = new Set(['--repo', '--receive-pack', '--exec', '-o', '--push-option', '--signed']);

function push(ctx: RuleContext, args: readonly string[]): void {
  let operand = 0;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    const lower = arg.toLowerCase();
    if (arg === '--') {
      for (const rest of args.slice(i + 1)) refspec(ctx, rest, operand++);
      break;
    }
    if (lower.startsWith('--forc')) ctx.danger(DANGEROUS.gitForcePush);
    else if (lower === '--mirror' || lower.startsWith('--del') || lower === '--prune')
      ctx.danger(DANGEROUS.gitRemoteDelete);
    else if (/^-[a-zA-Z]+$/.test(arg)) {
      if (arg.includes('f')) ctx.danger(DANGEROUS.gitForcePushShort);
      if (arg.includes('d')) ctx.danger(DANGEROUS.gitRemoteDelete);
    } else if (PUSH_VALUE_OPTIONS.has(lower)) i += 1;
    else if (!arg.startsWith('-')) refspec(ctx, arg, operand++);
  }
}

/** `+main` forces; `:branch` (empty source) deletes the remote branch. The first operand is the remote. */
function refspec(ctx: RuleContext, arg: string, index: number): void {
  if (arg.startsWith('+') && arg.length > 1) ctx.danger(DANGEROUS.gitForcePush);
  if (index > 0 && arg.startsWith(':') && arg.length > 1) ctx.danger(DANGEROUS.gitRemoteDelete);
}

/** `git checkout -- .`, `git checkout -f`, `git checkout HEAD -- file`, `git checkout .`: local edits are lost. */
function checkout(ctx: RuleContext, args: readonly string[]): void {
  const dashes = args.indexOf('--');
  const options = dashes < 0 ? args : args.slice(0, dashes);
  if (
    options.some(
      (a) =>
        a === '-f' ||
        a === '--force' ||
        a === '--overwrite-ignore' ||
        (/^-[a-zA-Z]+$/.test(a) && a.includes('f') && !a.includes('b')),
    )
  )
    ctx.danger(DANGEROUS.gitDiscard);
  if (dashes >= 0 && dashes + 1 < args.length) ctx.danger(DANGEROUS.gitDiscard);
  else if (options.some((a) => a === '.' || a === ':/' || a === '*' || a === './'))
    ctx.danger(DANGEROUS.gitDiscard);
}

/** `git switch --discard-changes` / `-f`. */
function switchBranch(ctx: RuleContext, args: readonly string[]): void {
  if (args.some((a) => a === '--discard-changes' || a === '-f' || a === '--force'))
    ctx.danger(DANGEROUS.gitDiscard);
}

/** `git restore` rewrites the work tree unless only `--staged` is asked. */
function restore(ctx: RuleContext, args: readonly string[]): void {
  let staged = false;
  let worktree = false;
  for (const arg of args) {
    if (arg === '--') break;
    if (arg === '--staged' || arg === '-S') staged = true;
    else if (arg === '--worktree' || arg === '-W') worktree = true;
    else if (/^-[a-zA-Z]+$/.test(arg)) {
      if (arg.includes('S')) staged = true;
      if (arg.includes('W')) worktree = true;
    }
  }
  if (worktree || !staged) ctx.danger(DANGEROUS.gitDiscard);
}

function stash(ctx: RuleContext, args: readonly string[]): void {
  const sub = args.find((a) => !a.startsWith('-'))?.toLowerCase();
  if (sub === 'drop' || sub === 'clear') ctx.danger(DANGEROUS.gitStashDrop);
}

function reflog(ctx: RuleContext, args: readonly string[]): void {
  const sub = args.find((a) => !a.startsWith('-'))?.toLowerCase();
  if (sub === 'expire' || sub === 'delete') ctx.danger(DANGEROUS.gitPrune);
}

function gc(ctx: RuleContext, args: readonly string[]): void {
  if (args.some((a) => a.toLowerCase() === '--prune=now' || a.toLowerCase() === '--prune=all'))
    ctx.danger(DANGEROUS.gitPrune);
}

function prune(ctx: RuleContext, args: readonly string[]): void {
  if (!args.includes('-n') && !args.includes('--dry-run')) ctx.danger(DANGEROUS.gitPrune);
}

function updateRef(ctx: RuleContext, args: readonly string[]): void {
  if (args.includes('-d') || args.includes('--delete') || args.includes('--stdin'))
    ctx.danger(DANGEROUS.gitRefDelete);
}

function rm(ctx: RuleContext, args: readonly string[]): void {
  const dashes = args.indexOf('--');
  const options = dashes < 0 ? args : args.slice(0, dashes);
  if (options.includes('--cached')) return;
  if (options.some((a) => a === '-r' || (/^-[a-zA-Z]+$/.test(a) && a.includes('r'))))
    ctx.danger(DANGEROUS.gitRmRecursive);
}

function clean(ctx: RuleContext, args: readonly string[]): void {
  let force = false;
  let dryRun = false;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === '--') break;
    if (arg === '--force') force = true;
    else if (arg === '--dry-run') dryRun = true;
    else if (arg === '-e' || arg === '--exclude') i += 1;
    else if (/^-[a-zA-Z]+$/.test(arg)) {
      const letters = arg.slice(1).split('e')[0] ?? '';
      if (letters.includes('f')) force = true;
      if (letters.includes('n')) dryRun = true;
    }
  }
  if (force && !dryRun) ctx.danger(DANGEROUS.gitClean);
}

function branch(ctx: RuleContext, args: readonly string[]): void {
  let deleteAt = -1;
  let forceAt = -1;
  let long = false;
  let capitalD = false;
  args.forEach((arg, i) => {
    if (arg === '--delete') {
      if (deleteAt < 0) deleteAt = i;
      long = true;
    } else if (arg === '--force') {
      if (forceAt < 0) forceAt = i;
      long = true;
    } else if (/^-[a-zA-Z]+$/.test(arg)) {
      if (arg.includes('D')) capitalD = true;
      if (arg.includes('d') && deleteAt < 0) deleteAt = i;
      if (arg.includes('f') && forceAt < 0) forceAt = i;
    }
  });
  if (capitalD || (deleteAt >= 0 && forceAt >= 0 && !long)) {
    ctx.danger(DANGEROUS.gitBranchD);
  } else if (deleteAt >= 0 && forceAt >= 0) {
    ctx.danger(forceAt < deleteAt ? DANGEROUS.gitBranchForceFirst : DANGEROUS.gitBranchLong);
  }
}

function git(ctx: RuleContext): void {
  const { argv } = ctx.seg;
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i] as string;
    if (!arg.startsWith('-')) break;
    i += !arg.includes('=') && GIT_VALUE_OPTIONS.has(arg) ? 2 : 1;
  }
  const sub = argv[i]?.toLowerCase();
  const rest = argv.slice(i + 1);
  switch (sub) {
    case 'reset':
      if (resetHard(rest)) ctx.danger(DANGEROUS.gitReset);
      return;
    case 'push':
      push(ctx, rest);
      return;
    case 'clean':
      clean(ctx, rest);
      return;
    case 'branch':
      branch(ctx, rest);
      return;
    case 'checkout':
      checkout(ctx, rest);
      return;
    case 'switch':
      switchBranch(ctx, rest);
      return;
    case 'restore':
      restore(ctx, rest);
      return;
    case 'stash':
      stash(ctx, rest);
      return;
    case 'reflog':
      reflog(ctx, rest);
      return;
    case 'gc':
      gc(ctx, rest);
      return;
    case 'prune':
      prune(ctx, rest);
      return;
    case 'update-ref':
      updateRef(ctx, rest);
      return;
    case 'rm':
      rm(ctx, rest);
      return;
    case 'filter-branch':
    case 'filter-repo':
      ctx.danger(DANGEROUS.gitRewrite);
      return;
    default:
  }
}

export const gitRules: readonly VerbRules[] = [
  { verbs: ['git'], run: git },
  { verbs: ['git-filter-repo', 'bfg'], run: (ctx) => ctx.danger(DANGEROUS.gitRewrite) },
];
