import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { resolveLongOption } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';
import { opaqueWord, staticWord } from './shell-word-builder.js';

/**
 * Programs that run a command once per piece of data: `xargs` (input lines appended, or put
 * in place of `-I` strings), `find -exec` (the path for `{}`), GNU `parallel` (a shell template
 * per argument, or commands read from stdin) and `hyperfine` (each operand through a shell).
 * The data is marked as not known, so the inner command is judged with unknown arguments.
 */

/** What `xargs` appends: input lines, any number of words, not known before it runs. */
const INPUT = opaqueWord('"$XARGS_INPUT"');

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

export const xargsRules: readonly VerbRules[] = [
  { verbs: ['xargs'], run: xargs },
  { verbs: ['find', 'gfind'], run: findExec },
  { verbs: ['parallel'], run: parallel },
  { verbs: ['hyperfine'], run: hyperfine },
];
