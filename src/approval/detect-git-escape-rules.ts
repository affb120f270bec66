import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import {
  CREDENTIAL_HELPERS,
  EDITORS,
  GPG_PROGRAMS,
  isAcceptedProgram,
  PAGERS,
  SSH_PROGRAMS,
} from './detect-programs.js';
import { subcommandIndex } from './detect-subcommands.js';
import type { ShellWord } from './shell-types.js';
import { staticWord } from './shell-word-builder.js';

/**
 * git's ways to run programs: configuration that names one (`-c core.pager=…`, `git config
 * core.hooksPath …`, `alias.x=!…`), options that take one (`--upload-pack`, `--receive-pack`,
 * `--exec`), subcommands that run commands (`rebase --exec`, `bisect run`, `submodule foreach`,
 * `difftool -x`, `filter-branch --tree-filter`), and unresolved arguments of subcommands that
 * lose work or history (`git reset "$x"` may be `--hard`).
 */

/** Configuration keys (lower-cased, `section.sub.key`) whose value git runs or loads. */
const EXEC_KEY =
  /^(?:core\.(?:pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy|alternaterefscommand)|sequence\.editor|diff\.external|diff\..+\.(?:command|textconv)|difftool\..+\.cmd|merge\..+\.driver|mergetool\..+\.cmd|filter\..+\.(?:clean|smudge|process)|credential\.(?:.+\.)?helper|gpg\.(?:.+\.)?program|gpg\.ssh\.defaultkeycommand|pager\..+|uploadpack\.packobjectshook|remote\..+\.(?:uploadpack|receivepack|vcs)|protocol\.(?:.+\.)?allow|include\.path|includeif\..+\.path|init\.templatedir|web\.browser|browser\..+\.(?:cmd|path)|man\..+\.(?:cmd|path)|man\.viewer|sendemail\.(?:smtpserver|tocmd|cccmd)|interactive\.difffilter|safe\.directory)$/;

/** Programs an exec key may name without approval (`core.editor 'code --wait'`, `credential.helper store`). */
function acceptedFor(key: string): readonly string[] {
  if (key === 'core.pager' || key.startsWith('pager.')) return PAGERS;
  if (key === 'core.editor' || key === 'sequence.editor') return EDITORS;
  if (key === 'core.sshcommand') return SSH_PROGRAMS;
  if (key.startsWith('gpg.') && key.endsWith('program')) return GPG_PROGRAMS;
  if (key.startsWith('credential.') && key.endsWith('.helper')) return CREDENTIAL_HELPERS;
  if (key === 'credential.helper') return CREDENTIAL_HELPERS;
  return [];
}

/** `key=value` of a configuration assignment: flagged when git would run or load the value. */
function configAssignment(ctx: RuleContext, key: string, value: string | undefined, expanded: boolean): void {
  const lower = key.toLowerCase();
  if (
    !expanded &&
    value !== undefined &&
    EXEC_KEY.test(lower) &&
    isAcceptedProgram(value, acceptedFor(lower))
  ) {
    ctx.scanShell(value, true);
    return;
  }
  if (expanded || EXEC_KEY.test(lower)) {
    ctx.danger(DANGEROUS.gitConfigExec);
    if (value !== undefined && !lower.startsWith('include') && !lower.endsWith('hookspath'))
      ctx.scanShell(value.replace(/^!/, ''), true);
    return;
  }
  if (lower.startsWith('alias.') && value !== undefined) {
    if (value.trimStart().startsWith('!')) {
      ctx.danger(DANGEROUS.gitConfigExec);
      ctx.scanShell(value.trimStart().slice(1), true);
    } else {
      // A plain alias runs a git subcommand: judge it as one.
      ctx.scanWords([
        staticWord('git'),
        ...value
          .split(/\s+/)
          .filter((w) => w !== '')
          .map((w) => staticWord(w)),
      ]);
    }
  }
}

function splitAssignment(text: string): [string, string | undefined] {
  const eq = text.indexOf('=');
  return eq < 0 ? [text, undefined] : [text.slice(0, eq), text.slice(eq + 1)];
}

/** `git -c k=v`, `--config-env=k=ENV`, `clone -c`/`--config k=v`. */
function configOptions(
  ctx: RuleContext,
  args: readonly ShellWord[],
  from: number,
  to: number,
  clone: boolean,
): void {
  for (let i = from; i < to; i += 1) {
    const arg = (args[i] as ShellWord).text;
    let word: ShellWord | undefined;
    if (arg === '-c' || (clone && arg === '--config')) word = args[++i];
    else if (arg.startsWith('-c') && arg.length > 2 && !arg.startsWith('--'))
      word = { ...(args[i] as ShellWord), text: arg.slice(2) };
    else if (clone && arg.startsWith('--config=')) word = { ...(args[i] as ShellWord), text: arg.slice(9) };
    else if (arg === '--config-env' || arg.startsWith('--config-env=')) {
      const text = arg === '--config-env' ? (args[++i]?.text ?? '') : arg.slice(13);
      configAssignment(ctx, splitAssignment(text)[0], undefined, true);
      continue;
    }
    if (word === undefined) continue;
    const [key, value] = splitAssignment(word.text);
    configAssignment(ctx, key, value, word.expanded);
  }
}

const CONFIG_READS = new Set([
  '--get',
  '--get-all',
  '--get-regexp',
  '--get-urlmatch',
  '--list',
  '-l',
  '--unset',
  '--unset-all',
  '--remove-section',
  '--rename-section',
  '--edit',
  '-e',
  '--show-origin',
  '--show-scope',
  '--name-only',
  '--get-color',
  '--get-colorbool',
]);
const CONFIG_VALUE_OPTIONS = new Set([
  '--file',
  '-f',
  '--blob',
  '--type',
  '--default',
  '--comment',
  '--value',
]);

/** `git config [scope] KEY VALUE`, `git config set KEY VALUE`, `git config --add KEY VALUE`. */
function gitConfig(ctx: RuleContext, args: readonly ShellWord[]): void {
  const positional: ShellWord[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] as ShellWord;
    const arg = word.text;
    if (CONFIG_READS.has(arg)) return;
    if (CONFIG_VALUE_OPTIONS.has(arg)) {
      i += 1;
      continue;
    }
    if (arg.startsWith('-')) continue;
    positional.push(word);
  }
  const offset = positional[0]?.text === 'set' ? 1 : 0;
  const first = positional[offset];
  const second = positional[offset + 1];
  if (
    offset === 0 &&
    first !== undefined &&
    ['get', 'list', 'unset', 'rename-section', 'remove-section', 'edit'].includes(first.text)
  )
    return;
  if (first === undefined || second === undefined) return;
  configAssignment(ctx, first.text, second.text, first.expanded || second.expanded);
}

/** Sub-options that name a program: `--upload-pack`, `-u` (clone/fetch/pull/ls-remote), `--receive-pack`/`--exec` (push), `--exec` (archive). */
const PROGRAM_OPTIONS: ReadonlyMap<string, readonly string[]> = new Map([
  ['clone', ['--upload-pack', '-u']],
  ['fetch', ['--upload-pack']],
  ['pull', ['--upload-pack']],
  ['ls-remote', ['--upload-pack']],
  ['push', ['--receive-pack', '--exec']],
  ['send-pack', ['--receive-pack', '--exec']],
  ['fetch-pack', ['--upload-pack', '--exec']],
  ['archive', ['--exec']],
]);

/** Subcommands that lose work or history when an argument turns out to be `--hard`, `-f`, `+ref`… */
const DESTRUCTIVE_SUBCOMMANDS = new Set([
  'push',
  'reset',
  'clean',
  'checkout',
  'restore',
  'switch',
  'branch',
  'tag',
  'stash',
  'rebase',
  'update-ref',
  'reflog',
  'gc',
  'prune',
  'rm',
  'filter-branch',
  'filter-repo',
  'worktree',
  'submodule',
]);

function optionValue(args: readonly ShellWord[], i: number, name: string): string | undefined {
  const arg = (args[i] as ShellWord).text;
  if (arg === name) return args[i + 1]?.text;
  if (arg.startsWith(`${name}=`)) return arg.slice(name.length + 1);
  if (name.length === 2 && arg.startsWith(name) && arg.length > 2) return arg.slice(2);
  return undefined;
}

function runners(ctx: RuleContext, sub: string, args: readonly ShellWord[]): void {
  const texts = args.map((word) => word.text);
  if (sub === 'rebase') {
    for (let i = 0; i < args.length; i += 1) {
      const value = optionValue(args, i, '--exec') ?? optionValue(args, i, '-x');
      if (value !== undefined) ctx.runPayload(args[i + 1]?.text === value ? args[i + 1] : staticWord(value));
    }
  } else if (sub === 'bisect' && texts[0] === 'run' && args.length > 1) {
    ctx.scanWords(args.slice(1));
  } else if (sub === 'submodule' && texts.includes('foreach')) {
    const rest = args
      .slice(texts.indexOf('foreach') + 1)
      .filter((word) => word.text !== '--recursive' && word.text !== '-q' && word.text !== '--quiet');
    if (rest.length > 0) {
      if (rest.some((word) => word.expanded)) ctx.danger(DANGEROUS.codeFromData);
      ctx.scanShell(rest.map((word) => word.text).join(' '));
    }
  } else if (sub === 'difftool' || sub === 'mergetool') {
    for (let i = 0; i < args.length; i += 1) {
      const value =
        optionValue(args, i, '--extcmd') ?? (sub === 'difftool' ? optionValue(args, i, '-x') : undefined);
      if (value === undefined) continue;
      ctx.danger(DANGEROUS.gitOptionExec);
      ctx.scanShell(value);
    }
  } else if (sub === 'filter-branch') {
    for (let i = 0; i < args.length; i += 1) {
      const arg = texts[i] as string;
      if (/^--[a-z-]+-filter$/.test(arg) && args[i + 1] !== undefined) ctx.runPayload(args[i + 1]);
    }
  } else if (sub === 'grep') {
    for (let i = 0; i < args.length; i += 1) {
      const arg = texts[i] as string;
      if (arg === '-O' || arg.startsWith('-O') || arg.startsWith('--open-files-in-pager'))
        ctx.danger(DANGEROUS.gitOptionExec);
    }
  }
  const programOptions = PROGRAM_OPTIONS.get(sub);
  if (programOptions === undefined) return;
  for (let i = 0; i < args.length; i += 1) {
    for (const name of programOptions) {
      const value = optionValue(args, i, name);
      if (value === undefined) continue;
      ctx.danger(DANGEROUS.gitOptionExec);
      ctx.scanShell(value);
    }
  }
}

function git(ctx: RuleContext): void {
  const { args, argl } = ctx.seg;
  const { index } = subcommandIndex('git', ctx.seg.argv);
  const end = index < 0 ? args.length : index;
  configOptions(ctx, args, 0, end, false);
  if (index < 0) return;
  const sub = argl[index] as string;
  const rest = args.slice(index + 1);
  if (sub === 'config') gitConfig(ctx, rest);
  if (sub === 'clone' || sub === 'init') {
    configOptions(ctx, rest, 0, rest.length, true);
    if (rest.some((word) => word.text.startsWith('--template'))) ctx.danger(DANGEROUS.gitConfigExec);
  }
  runners(ctx, sub, rest);
  if (DESTRUCTIVE_SUBCOMMANDS.has(sub) && rest.some((word) => word.expanded)) {
    ctx.danger(DANGEROUS.unresolvedArgument);
  }
}

export const gitEscapeRules: readonly VerbRules[] = [{ verbs: ['git'], run: git }];
