import type { Positional } from './detect-bindings.js';
import type { RuleContext } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import type { ShellWord } from './shell-types.js';
import { staticWord } from './shell-word-builder.js';

/**
 * How a shell is invoked (`-c` text, script, or stdin), and where a program that reads its code
 * from stdin gets it.
 */

const SHELL_VALUE_OPTIONS = new Set(['--init-file', '--rcfile']);
/** Files that name the shell's own stdin (or another inherited descriptor). */
export const STDIN_FILES = /^(?:-|\/dev\/stdin|\/dev\/fd\/[0-9]+|\/proc\/[^/]+\/fd\/[0-9]+)$/;

/** How a shell is invoked: its `-c` text, or the script it runs, or stdin. */
export interface ShellCall {
  /** The `-c` text. */
  readonly payload: ShellWord | undefined;
  /** The script file operand (not with `-c` or `-s`). */
  readonly script: ShellWord | undefined;
  /** The words after the payload or script: `$0 $1…` for `-c`, `$1…` otherwise. */
  readonly rest: readonly ShellWord[];
  /** No `-c` and no script (or `-s`): the program comes from stdin. */
  readonly readsStdin: boolean;
  /** `-n`, `--version`, `--help`: nothing is executed. */
  readonly noExec: boolean;
  /** The `--rcfile`/`--init-file` an interactive shell runs first. */
  readonly startup?: ShellWord | undefined;
}

export function shellCall(args: readonly ShellWord[]): ShellCall {
  let dashC = false;
  let dashS = false;
  let noExec = false;
  let startup: ShellWord | undefined;
  let start = args.length;
  for (let i = 0; i < args.length; i += 1) {
    const arg = (args[i] as ShellWord).text;
    if (arg === '--' || arg === '-') {
      start = i + 1;
      break;
    }
    if (arg.startsWith('--')) {
      if (arg === '--version' || arg === '--help') noExec = true;
      if (SHELL_VALUE_OPTIONS.has(arg)) {
        i += 1;
        startup = args[i];
      }
      continue;
    }
    if ((arg.startsWith('-') || arg.startsWith('+')) && arg.length > 1) {
      const letters = arg.slice(1);
      if (letters.includes('c')) dashC = true;
      if (letters.includes('s')) dashS = true;
      if (letters.includes('n') && arg.startsWith('-')) noExec = true;
      if (letters.includes('o') || letters.includes('O')) i += 1;
      continue;
    }
    start = i;
    break;
  }
  const operands = args.slice(start);
  if (dashC)
    return {
      payload: operands[0],
      script: undefined,
      rest: operands.slice(1),
      readsStdin: false,
      noExec,
      startup,
    };
  if (dashS)
    return { payload: undefined, script: undefined, rest: operands, readsStdin: true, noExec, startup };
  const script = operands[0];
  return {
    payload: undefined,
    script,
    rest: operands.slice(1),
    readsStdin: script === undefined,
    noExec,
    startup,
  };
}

/** `bash -c CMD` → CMD; also says whether the shell reads its program from stdin. */
export function shellInvocation(argv: readonly string[]): {
  payload: string | undefined;
  readsStdin: boolean;
} {
  const call = shellCall(argv.map((text) => staticWord(text)));
  const readsStdin = call.readsStdin || (call.script !== undefined && STDIN_FILES.test(call.script.text));
  return { payload: call.payload?.text, readsStdin };
}

/** Positional parameters a payload runs with (`$0` first), or null when any is not known. */
export function positionalOf(words: readonly ShellWord[], zero: string): Positional {
  if (words.some((word) => word.expanded || word.dynamic)) return null;
  return words.length === 0 ? [zero] : words.map((word) => word.text);
}

/**
 * Where a program that reads its code from stdin gets it. The terminal gives commands an empty
 * stdin, so `none` means nothing runs; pipes and heredocs are judged by their own rules
 * (`visible`); a plain file redirect is like a script file; a redirect from an expansion or a
 * process substitution is code not known statically (`unknown`).
 */
export function stdinSource(ctx: RuleContext): 'none' | 'visible' | 'file' | 'unknown' {
  if (ctx.stdinPiped) return 'visible';
  for (const redirect of ctx.seg.redirects) {
    if (redirect.op === '<<' || redirect.op === '<<-' || redirect.op === '<<<') return 'visible';
    if (redirect.op === '<' && (redirect.fd === undefined || redirect.fd === 0)) {
      const target = redirect.target;
      if (target === undefined || target.expanded || target.subs.length > 0) return 'unknown';
      return 'file';
    }
    // `<&3`: stdin is another descriptor, opened elsewhere (`exec 3<<<'…'`).
    if (
      redirect.op === '<&' &&
      (redirect.fd === undefined || redirect.fd === 0) &&
      redirect.target?.text !== '-'
    )
      return 'unknown';
  }
  return 'none';
}

/** Flags a program read from stdin when that stdin is redirected from something not known. */
export function stdinProgram(ctx: RuleContext): void {
  const first = ctx.seg.command.words[0];
  // `coproc sh`: the rest of the command writes the program into its stdin.
  if (first !== undefined && !first.quoted && first.text === 'coproc') ctx.danger(DANGEROUS.codeFromData);
  else if (stdinSource(ctx) === 'unknown') ctx.danger(DANGEROUS.unresolvedProgram);
}
