import type { RuleContext } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { COMPILERS, EDITORS, isAcceptedProgram, PAGERS, SSH_PROGRAMS } from './detect-programs.js';
import { isAssignment } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * Environment that changes which code a program runs, set for a command (`VAR=x cmd`,
 * `env VAR=x cmd`, `sudo VAR=x cmd`), exported earlier in the list, or given to a wrapper
 * (`strace -E`, `systemd-run -E`, `bwrap --setenv`). Loader and interpreter hooks
 * (`LD_PRELOAD`, `BASH_ENV`, `PYTHONPATH`…) are always flagged; variables naming a program
 * (`GIT_SSH_COMMAND`, `PAGER`, `EDITOR`…) are scanned as commands and flagged unless they name
 * one well-known program with plain arguments.
 */

const CODE_INJECTION = new Set([
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'LD_AUDIT',
  'DYLD_INSERT_LIBRARIES',
  'DYLD_LIBRARY_PATH',
  'DYLD_FRAMEWORK_PATH',
  'BASH_ENV',
  'PROMPT_COMMAND',
  'PS0',
  'PS1',
  'PS4',
  'SHELLOPTS',
  'BASHOPTS',
  'ZDOTDIR',
  'PYTHONSTARTUP',
  'PYTHONPATH',
  'PYTHONHOME',
  'PERL5OPT',
  'PERL5LIB',
  'PERLLIB',
  'PERL5DB',
  'RUBYOPT',
  'RUBYLIB',
  'NODE_PATH',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  'GCONV_PATH',
  'LUA_INIT',
  'LUA_PATH',
  'LUA_CPATH',
  'PHPRC',
  'PHP_INI_SCAN_DIR',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
]);

/** NODE_OPTIONS that load code (`--require`, `--import`, loaders) or open a debugger. */
const NODE_CODE_OPTIONS =
  /(?:^|\s)(?:-r\b|--require|--import|--loader|--experimental-loader|--experimental-[a-z-]*loader|--inspect|--env-file|-e\b|--eval)/;
/** TAR_OPTIONS that run programs. */
const TAR_CODE_OPTIONS =
  /checkpoint-action|to-command|use-compress|info-script|new-volume-script|rsh-command|rmt-command|(?:^|\s)-[a-zA-Z]*[IF]/;

/** Variables naming a program, with the programs accepted without approval. */
const PROGRAM_VARIABLES: ReadonlyMap<string, readonly string[]> = new Map([
  ['GIT_SSH_COMMAND', SSH_PROGRAMS],
  ['GIT_SSH', SSH_PROGRAMS],
  ['RSYNC_RSH', SSH_PROGRAMS],
  ['CVS_RSH', SSH_PROGRAMS],
  ['SVN_SSH', SSH_PROGRAMS],
  ['GIT_PAGER', PAGERS],
  ['PAGER', PAGERS],
  ['MANPAGER', PAGERS],
  ['SYSTEMD_PAGER', PAGERS],
  ['PSQL_PAGER', PAGERS],
  ['BAT_PAGER', PAGERS],
  ['DELTA_PAGER', PAGERS],
  ['EDITOR', EDITORS],
  ['VISUAL', EDITORS],
  ['GIT_EDITOR', EDITORS],
  ['GIT_SEQUENCE_EDITOR', EDITORS],
  ['KUBE_EDITOR', EDITORS],
  ['PSQL_EDITOR', EDITORS],
  ['SUDO_EDITOR', EDITORS],
  ['CC', COMPILERS],
  ['CXX', COMPILERS],
  ['LESSOPEN', ['lesspipe', 'lesspipe.sh', 'lessfilter']],
  ['LESSCLOSE', ['lesspipe', 'lesspipe.sh']],
  ['SHELL', ['bash', 'sh', 'zsh', 'dash', 'fish', 'ksh']],
  ['BROWSER', ['firefox', 'chromium', 'google-chrome', 'xdg-open', 'open', 'w3m', 'lynx', 'true', 'echo']],
  ['FZF_DEFAULT_COMMAND', ['fd', 'fdfind', 'rg', 'find', 'ag', 'git']],
  ['GIT_EXTERNAL_DIFF', []],
  ['GIT_ASKPASS', []],
  ['SSH_ASKPASS', []],
  ['SUDO_ASKPASS', []],
  ['GIT_PROXY_COMMAND', []],
  ['NPM_CONFIG_SCRIPT_SHELL', ['bash', 'sh', 'zsh', 'dash']],
]);

function checkAssignment(ctx: RuleContext, word: ShellWord): void {
  const text = word.text;
  const eq = text.indexOf('=');
  const name = text.slice(0, text[eq - 1] === '+' ? eq - 1 : eq);
  const value = text.slice(eq + 1);
  const upper = name.toUpperCase();
  if (upper.startsWith('BASH_FUNC_')) {
    // An exported function: bash defines it from the environment (`BASH_FUNC_ls%%=() { …; }`).
    ctx.danger(DANGEROUS.envCodeInjection);
    ctx.scanShell(value.replace(/^\(\)\s*/, ''), true);
    return;
  }
  if (upper === 'ENV') {
    // Read by interactive POSIX shells only; `ENV=production` is an ordinary app setting.
    if (word.expanded || /[/~`$]|\.sh$/.test(value)) ctx.danger(DANGEROUS.envCodeInjection);
    return;
  }
  if (CODE_INJECTION.has(upper) || /^GIT_CONFIG_(?:KEY|VALUE)_[0-9]+$/.test(upper)) {
    if (value !== '' || word.expanded) ctx.danger(DANGEROUS.envCodeInjection);
    return;
  }
  if (upper === 'NODE_OPTIONS') {
    if (word.expanded || NODE_CODE_OPTIONS.test(value)) ctx.danger(DANGEROUS.envCodeInjection);
    return;
  }
  if (upper === 'TAR_OPTIONS') {
    if (word.expanded || TAR_CODE_OPTIONS.test(value)) ctx.danger(DANGEROUS.envCodeInjection);
    return;
  }
  const allowed = PROGRAM_VARIABLES.get(upper);
  if (allowed === undefined || (value === '' && !word.expanded)) return;
  const command = upper.startsWith('LESS') ? value.replace(/^\|+/, '').replace(/%s/g, 'file') : value;
  ctx.scanShell(command);
  if (word.expanded || !isAcceptedProgram(command, allowed)) ctx.danger(DANGEROUS.envProgram);
}

const EXPORTERS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);

/** Assignments a command makes or passes on, as words (wrapper options included). */
function assignmentsOf(ctx: RuleContext): ShellWord[] {
  const { seg } = ctx;
  const out = [...seg.assignmentWords];
  if (EXPORTERS.has(seg.verb)) for (const word of seg.args) if (isAssignment(word.text)) out.push(word);
  return out;
}

/** `VAR=value` strings given to wrappers through their options (`strace -E`, `systemd-run -E`). */
function wrapperAssignments(ctx: RuleContext): string[] {
  const out: string[] = [];
  for (const wrapper of ctx.seg.wrappers) {
    const { options } = wrapper;
    for (let i = 0; i < options.length; i += 1) {
      const option = options[i] as string;
      if (wrapper.name === 'bwrap' && option === '--setenv')
        out.push(`${options[i + 1] ?? ''}=${options[i + 2] ?? ''}`);
      if (wrapper.name !== 'strace' && wrapper.name !== 'systemd-run') continue;
      if (option === '-E' || option === '--env' || option === '--setenv') out.push(options[i + 1] ?? '');
      else if (option.startsWith('--env=') || option.startsWith('--setenv='))
        out.push(option.slice(option.indexOf('=') + 1));
      else if (/^-E./.test(option)) out.push(option.slice(2));
    }
  }
  return out.filter((text) => isAssignment(text));
}

export function envRule(ctx: RuleContext): void {
  if (EXPORTERS.has(ctx.seg.verb) && ctx.seg.args.some((word) => word.splittable && !isAssignment(word.text)))
    // `export $(grep -v '^#' .env | xargs)`: any name, LD_PRELOAD included.
    ctx.danger(DANGEROUS.unresolvedEnvironment);
  const words = assignmentsOf(ctx);
  const extra = ctx.seg.wrappers.length > 0 ? wrapperAssignments(ctx) : [];
  if (words.length === 0 && extra.length === 0) return;
  for (const word of words) checkAssignment(ctx, word);
  for (const text of extra) {
    checkAssignment(ctx, {
      text,
      quoted: false,
      dynamic: false,
      mixedName: false,
      expansionName: undefined,
      expansionUnquoted: false,
      subs: [],
      expanded: text.includes('$') || text.includes('`'),
      splittable: false,
      baseDynamic: false,
      baseGlob: false,
    });
  }
}
