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

function push(ctx: RuleContext, args: readonly string[]): void {
  for (const arg of args) {
    if (arg === '--') break;
    if (arg.toLowerCase().startsWith('--forc')) ctx.danger(DANGEROUS.gitForcePush);
    else if (/^-[a-zA-Z]+$/.test(arg) && arg.includes('f')) ctx.danger(DANGEROUS.gitForcePushShort);
    else if (arg.startsWith('+') && arg.length > 1) ctx.danger(DANGEROUS.gitForcePush);
  }
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
  if (sub === 'reset' && resetHard(rest)) ctx.danger(DANGEROUS.gitReset);
  else if (sub === 'push') push(ctx, rest);
  else if (sub === 'clean') clean(ctx, rest);
  else if (sub === 'branch') branch(ctx, rest);
}

export const gitRules: readonly VerbRules[] = [{ verbs: ['git'], run: git }];
