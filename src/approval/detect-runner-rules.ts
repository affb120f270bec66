import type { Rule, RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { heredocBodies } from './detect-literal-output.js';
import { RUNNERS, type RunnerSpec } from './detect-runner-table.js';
import { operands, resolveLongOption } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';
import { opaqueWord, staticWord } from './shell-word-builder.js';

/**
 * Programs that run other programs given in their arguments, peeled like `sudo` so the inner
 * command is judged: `xargs` and `find -exec` (with the data they substitute marked as not
 * known), `parallel`, project runners (`poetry run`, `npm exec`, `nix-shell --run`…), and the
 * schedulers and readers that run text later or from data (`at`, `batch`, `crontab`,
 * `make -f /dev/stdin`, `trap '…'`).
 */

/** What `xargs` appends: input lines, any number of words, not known before it runs. */
const INPUT = opaqueWord('"$XARGS_INPUT"');
const STDIN_FILES = /^(?:-|\/dev\/stdin|\/dev\/fd\/[0-9]+|\/proc\/[^/]+\/fd\/[0-9]+)$/;

/** Marks words holding a replacement string (`{}`) as data: their value is not known. */
function withData(words: readonly ShellWord[], replace: string): ShellWord[] {
  return words.map((word) => (replace !== '' && word.text.includes(replace) ? opaqueWord(word.text) : word));
}

const XARGS_LONGS = [
  '--arg-file',
  '--delimiter',
  '--eof',
  '--replace',
  '--max-lines',
  '--max-args',
  '--max-procs',
  '--max-chars',
  '--process-slot-var',
  '--null',
  '--open-tty',
  '--interactive',
  '--no-run-if-empty',
  '--verbose',
  '--exit',
  '--show-limits',
  '--help',
  '--version',
];
const XARGS_VALUED = new Set([
  '--arg-file',
  '--delimiter',
  '--max-args',
  '--max-procs',
  '--max-chars',
  '--process-slot-var',
]);

function xargs(ctx: RuleContext): void {
  const { args } = ctx.seg;
  let replace = '';
  let i = 0;
  while (i < args.length) {
    const arg = (args[i] as ShellWord).text;
    if (arg === '--') {
      i += 1;
      break;
    }
    if (!arg.startsWith('-') || arg === '-') break;
    if (arg.startsWith('--')) {
      const name = resolveLongOption(arg, XARGS_LONGS);
      const eq = arg.indexOf('=');
      if (name === '--replace') replace = eq >= 0 ? arg.slice(eq + 1) : '{}';
      i += name !== undefined && XARGS_VALUED.has(name) && eq < 0 ? 2 : 1;
      continue;
    }
    let consumed = 1;
    for (let k = 1; k < arg.length; k += 1) {
      const letter = arg[k] as string;
      const rest = arg.slice(k + 1);
      if (letter === 'I') {
        replace = rest !== '' ? rest : (args[i + 1]?.text ?? '{}');
        if (rest === '') consumed = 2;
        break;
      }
      if (letter === 'i' || letter === 'l' || letter === 'e') {
        if (letter === 'i') replace = rest !== '' ? rest : '{}';
        break;
      }
      if ('adELnPs'.includes(letter)) {
        if (rest === '') consumed = 2;
        break;
      }
    }
    i += consumed;
  }
  const inner = args.slice(i);
  const words = inner.length === 0 ? [staticWord('echo')] : withData(inner, replace);
  ctx.scanWords(replace === '' ? [...words, INPUT] : words);
}

/** `find … -exec CMD {} ;`: the found path stands in for `{}`. */
function findExec(ctx: RuleContext): void {
  const { args, argl } = ctx.seg;
  for (let i = 0; i < args.length; i += 1) {
    const option = argl[i] as string;
    if (option !== '-exec' && option !== '-execdir' && option !== '-ok' && option !== '-okdir') continue;
    let end = i + 1;
    while (end < args.length && args[end]?.text !== ';' && args[end]?.text !== '+') end += 1;
    const words = args.slice(i + 1, end);
    if (words.length > 0) ctx.scanWords(withData(words, '{}'));
    i = end;
  }
}

const PARALLEL_VALUED = new Set([
  '-j',
  '--jobs',
  '-a',
  '--arg-file',
  '-d',
  '--delimiter',
  '-E',
  '--eof',
  '-I',
  '--colsep',
  '-C',
  '-S',
  '--sshlogin',
  '--sshloginfile',
  '-n',
  '--max-args',
  '-N',
  '-L',
  '--max-lines',
  '--timeout',
  '--retries',
  '--joblog',
  '--results',
  '--res',
  '--tmpdir',
  '--workdir',
  '--wd',
  '--env',
  '--tag-string',
  '--delay',
  '--memfree',
  '--load',
  '--halt',
  '--basefile',
  '--bf',
  '--return',
  '--transferfile',
  '--tf',
  '--sshdelay',
  '--block',
  '--recstart',
  '--recend',
  '--header',
]);

/** GNU parallel runs its command template through a shell, once per argument. */
function parallel(ctx: RuleContext): void {
  const { args } = ctx.seg;
  let i = 0;
  while (i < args.length) {
    const arg = (args[i] as ShellWord).text;
    if (arg.startsWith(':::')) break;
    if (!arg.startsWith('-')) break;
    if (arg === '-S' || arg.startsWith('--sshlogin') || arg === '--slf') ctx.danger(DANGEROUS.remoteCommand);
    i += PARALLEL_VALUED.has(arg) ? 2 : 1;
  }
  const separator = args.findIndex((word, at) => at >= i && word.text.startsWith(':::'));
  const template = args.slice(i, separator < 0 ? args.length : separator);
  if (template.length === 0) {
    if (separator < 0) ctx.danger(DANGEROUS.codeFromData);
    else for (const word of args.slice(separator + 1)) if (!word.text.startsWith(':::')) ctx.runPayload(word);
    return;
  }
  if (template.some((word) => word.expanded)) ctx.danger(DANGEROUS.codeFromData);
  let text = template.map((word) => word.text).join(' ');
  const replaced = text.replace(/\{[0-9]*[./#%^]*\}|\{=.*?=\}/g, '"$PARALLEL_ARG"');
  text = replaced === text ? `${text} "$PARALLEL_ARG"` : replaced;
  ctx.scanShell(text);
}

/** Index of the subcommand path (`run`, `exec`, `bisect run`) in argv, skipping global options. */
function pathEnd(spec: RunnerSpec, argv: readonly string[]): number {
  let i = 0;
  let step = 0;
  while (i < argv.length && step < spec.path.length) {
    const arg = argv[i] as string;
    if (arg.startsWith('-')) {
      i += spec.globalValued?.includes(arg) ? 2 : 1;
      continue;
    }
    if (arg.toLowerCase() !== spec.path[step]) return -1;
    step += 1;
    i += 1;
  }
  return step === spec.path.length ? i : -1;
}

function runner(ctx: RuleContext, spec: RunnerSpec): void {
  const { args, argv } = ctx.seg;
  let i = pathEnd(spec, argv);
  if (i < 0) return;
  let positional = spec.positional ?? 0;
  let sawDashes = false;
  let alternative = -1;
  while (i < args.length) {
    const word = args[i] as ShellWord;
    const arg = word.text;
    if (arg === '--') {
      sawDashes = true;
      i += 1;
      break;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      const eq = arg.indexOf('=');
      const name = eq >= 0 ? arg.slice(0, eq) : arg;
      if (spec.payload?.includes(name)) {
        ctx.runPayload(eq >= 0 ? { ...word, text: arg.slice(eq + 1) } : args[i + 1]);
        if (spec.payloadOnly === true) return;
        i += eq >= 0 ? 1 : 2;
        continue;
      }
      if (spec.stop?.includes(name)) return;
      if (spec.commandAfter?.includes(name)) {
        sawDashes = true;
        i += 1;
        break;
      }
      const valued = spec.valued?.includes(name) === true;
      if (
        !valued &&
        eq < 0 &&
        name.startsWith('--') &&
        spec.flags !== undefined &&
        !spec.flags.includes(name) &&
        alternative < 0
      )
        alternative = i + 2;
      i += valued && eq < 0 ? 2 : 1;
      continue;
    }
    if (positional > 0) {
      positional -= 1;
      i += 1;
      continue;
    }
    break;
  }
  if (spec.dashes === true && !sawDashes) return;
  const command = args.slice(i);
  if (command.length === 0) return;
  if (spec.shell === true) {
    const first = command[0] as ShellWord;
    const words = spec.shellFirstOnly === true ? [first] : command;
    if (words.some((word) => word.expanded)) ctx.danger(DANGEROUS.codeFromData);
    ctx.scanShell(words.map((word) => word.text).join(' '));
    return;
  }
  ctx.scanWords(command);
  if (alternative > 0 && alternative < args.length) ctx.scanWords(args.slice(alternative));
}

function runners(ctx: RuleContext): void {
  for (const spec of RUNNERS.get(ctx.seg.family) ?? []) runner(ctx, spec);
}

const HYPERFINE_PAYLOADS = new Set(['-p', '--prepare', '-s', '--setup', '-c', '--cleanup', '--conclude']);
const HYPERFINE_VALUED = new Set([
  '-w',
  '--warmup',
  '-r',
  '--runs',
  '-m',
  '--min-runs',
  '-M',
  '--max-runs',
  '-n',
  '--command-name',
  '--style',
  '--sort',
  '--time-unit',
  '--output',
  '--input',
  '--export-json',
  '--export-csv',
  '--export-markdown',
  '--export-asciidoc',
  '--export-orgmode',
  '-D',
  '--parameter-step-size',
]);

/** hyperfine runs each operand (and `--prepare`/`--setup`/`--cleanup` text) through a shell. */
function hyperfine(ctx: RuleContext): void {
  const { args } = ctx.seg;
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] as ShellWord;
    const arg = word.text;
    if (HYPERFINE_PAYLOADS.has(arg)) ctx.runPayload(args[++i]);
    else if (arg === '-S' || arg === '--shell') {
      const shell = args[++i]?.text ?? '';
      if (!/^(?:bash|sh|zsh|dash|none|default)$/.test(shell)) ctx.danger(DANGEROUS.optionProgram);
    } else if (arg === '-L' || arg === '--parameter-scan') i += 3;
    else if (arg === '-P') i += 3;
    else if (arg === '--parameter-list') i += 2;
    else if (HYPERFINE_VALUED.has(arg)) i += 1;
    else if (!arg.startsWith('-')) ctx.runPayload(word);
  }
}

/** `at`, `batch`, `crontab`: commands that run later, out of sight of any approval. */
function scheduler(ctx: RuleContext): void {
  const { verb, argv } = ctx.seg;
  const letters = argv.filter((arg) => /^-[a-zA-Z]+$/.test(arg)).join('');
  if (verb === 'crontab') {
    if (/l/.test(letters) && !/[re]/.test(letters) && operands(argv).length === 0) return;
  } else if (/[lc]/.test(letters) || argv.includes('-r') || argv.includes('-d')) {
    return;
  }
  ctx.danger(DANGEROUS.scheduledCommand);
  for (const body of heredocBodies(ctx.seg)) {
    for (const line of body.split('\n')) {
      const command = verb === 'crontab' ? line.replace(/^\s*(?:@\w+|(?:\S+\s+){5})/, '') : line;
      if (command.trim() !== '' && !command.trim().startsWith('#')) ctx.scanShell(command, true);
    }
  }
}

/** `make -f /dev/stdin`, `make -f <(…)`, `make -f "$x"`: the makefile is data. */
function make(ctx: RuleContext): void {
  const { args } = ctx.seg;
  for (let i = 0; i < args.length; i += 1) {
    const arg = (args[i] as ShellWord).text;
    let file: ShellWord | undefined;
    if (arg === '-f' || arg === '--file' || arg === '--makefile') file = args[i + 1];
    else if (arg.startsWith('--file=') || arg.startsWith('--makefile='))
      file = { ...(args[i] as ShellWord), text: arg.slice(arg.indexOf('=') + 1) };
    else if (/^-f./.test(arg)) file = { ...(args[i] as ShellWord), text: arg.slice(2) };
    else if (
      /^(?:SHELL|MAKESHELL)=/.test(arg) &&
      !/^(?:SHELL|MAKESHELL)=(?:\/(?:usr\/)?bin\/)?(?:ba|da|z|k)?sh$/.test(arg)
    ) {
      ctx.danger(DANGEROUS.optionProgram);
    }
    if (file !== undefined && (file.expanded || STDIN_FILES.test(file.text)))
      ctx.danger(DANGEROUS.codeFromData);
  }
}

/** `trap 'ACTION' SIGNAL…`: the action runs later, in this shell. */
function trap(ctx: RuleContext): void {
  const ops = ctx.seg.args.filter((word) => !/^-[lp-]$/.test(word.text) || word.text === '-');
  if (ctx.seg.argv.includes('-l') || ctx.seg.argv.includes('-p') || ops.length < 2) return;
  const action = ops[0] as ShellWord;
  if (action.text === '-' || action.text === '') return;
  ctx.runPayload(action, ctx.positional);
}

/** Options wrappers take that run or load code: `strace -o '|cmd'`, `fakeroot -l lib`, `systemd-run --on-calendar`. */
function wrapperOptions(ctx: RuleContext): void {
  for (const { name, options } of ctx.seg.wrappers) {
    for (let i = 0; i < options.length; i += 1) {
      const option = options[i] as string;
      if (name === 'strace' || name === 'ltrace') {
        const value =
          option === '-o' || option === '--output'
            ? options[i + 1]
            : option.startsWith('--output=')
              ? option.slice(9)
              : /^-o./.test(option)
                ? option.slice(2)
                : undefined;
        if (value !== undefined && /^[|!]/.test(value)) {
          ctx.danger(DANGEROUS.optionProgram);
          ctx.scanShell(value.slice(1));
        }
      } else if (
        name === 'fakeroot' &&
        (option === '-l' ||
          option === '--faked' ||
          /^--(?:lib|faked)(?:=|$)/.test(option) ||
          /^-l./.test(option))
      ) {
        ctx.danger(DANGEROUS.envCodeInjection);
      } else if (name === 'systemd-run' && /^--(?:on-|timer-property)/.test(option)) {
        ctx.danger(DANGEROUS.scheduledCommand);
      }
    }
  }
}

export const runnerGenericRules: readonly Rule[] = [wrapperOptions];

export const runnerRules: readonly VerbRules[] = [
  { verbs: ['xargs'], run: xargs },
  { verbs: ['find', 'gfind'], run: findExec },
  { verbs: ['parallel'], run: parallel },
  { verbs: ['hyperfine'], run: hyperfine },
  { verbs: [...RUNNERS.keys()], run: runners },
  { verbs: ['at', 'batch', 'crontab'], run: scheduler },
  { verbs: ['make', 'gmake'], run: make },
  { verbs: ['trap'], run: trap },
];
