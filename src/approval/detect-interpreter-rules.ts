import type { CodeLanguage, RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS, readToolExecKey } from './detect-keys.js';
import { heredocBodies } from './detect-literal-output.js';
import {
  isHermesConfigPath,
  isHermesHomePath,
  isSensitiveUserPath,
  isSystemConfigPath,
} from './detect-paths.js';
import { STDIN_FILES, stdinProgram } from './detect-shell-call.js';
import { operands } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * Interpreters with inline programs (`python -c`, `node -e`, `perl -pie`, awk programs,
 * heredocs into an interpreter) and read-only tools whose options run a program.
 */

/** Where an interpreter's inline program is, by option (perl/ruby clusters like `-pie`, `-ne`). */
export interface InlineProgram {
  readonly code: string[];
  readonly inPlace: boolean;
  readonly module: string | undefined;
  /** A script file (or `-`) is named: stdin is data, not the program. */
  readonly script: string | undefined;
  readonly files: string[];
  /** Arguments before this index decide which program runs (options, code, module, script). */
  readonly programEnd: number;
}

export interface InterpreterSpec {
  readonly language: CodeLanguage;
  /** Short letters that take the program text. */
  readonly codeLetters: string;
  /** Long options that take the program text. */
  readonly codeLong: readonly string[];
  /** Short letters that take some other value. */
  readonly valueLetters: string;
  readonly valueLong: readonly string[];
}

export const INTERPRETERS: ReadonlyMap<string, InterpreterSpec> = new Map<string, InterpreterSpec>([
  ['python', { language: 'python', codeLetters: 'c', codeLong: [], valueLetters: 'mWX', valueLong: [] }],
  [
    'node',
    {
      language: 'node',
      codeLetters: 'ep',
      codeLong: ['--eval', '--print'],
      valueLetters: 'rC',
      valueLong: [
        '--require',
        '--import',
        '--conditions',
        '--loader',
        '--experimental-loader',
        '--title',
        '--input-type',
      ],
    },
  ],
  [
    'bun',
    {
      language: 'node',
      codeLetters: 'ep',
      codeLong: ['--eval', '--print'],
      valueLetters: 'r',
      valueLong: [],
    },
  ],
  ['ruby', { language: 'ruby', codeLetters: 'e', codeLong: [], valueLetters: 'rICEFK', valueLong: [] }],
  ['perl', { language: 'perl', codeLetters: 'eE', codeLong: [], valueLetters: 'MmIxF', valueLong: [] }],
  ['php', { language: 'php', codeLetters: 'r', codeLong: [], valueLetters: 'cdz', valueLong: [] }],
  ['lua', { language: 'lua', codeLetters: 'e', codeLong: [], valueLetters: 'l', valueLong: [] }],
  ['osascript', { language: 'osascript', codeLetters: 'e', codeLong: [], valueLetters: 'l', valueLong: [] }],
  ['rscript', { language: 'r', codeLetters: 'e', codeLong: ['--expr'], valueLetters: '', valueLong: [] }],
  ['expect', { language: 'tcl', codeLetters: 'c', codeLong: [], valueLetters: 'fD', valueLong: [] }],
  ['tclsh', { language: 'tcl', codeLetters: '', codeLong: [], valueLetters: 'e', valueLong: [] }],
  ['wish', { language: 'tcl', codeLetters: '', codeLong: [], valueLetters: '', valueLong: [] }],
]);

export function parseInterpreter(argv: readonly string[], spec: InterpreterSpec): InlineProgram {
  const code: string[] = [];
  const files: string[] = [];
  let inPlace = false;
  let module: string | undefined;
  let script: string | undefined;
  let programEnd = -1;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (script !== undefined || module !== undefined || (code.length > 0 && !arg.startsWith('-'))) {
      if (programEnd < 0) programEnd = i;
      files.push(arg.toLowerCase());
      continue;
    }
    if (arg === '-' || arg === '--') {
      script = arg === '-' ? '-' : argv[i + 1];
      if (arg === '--') i += 1;
      continue;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg : arg.slice(0, eq);
      if (spec.codeLong.includes(name)) code.push(eq < 0 ? (argv[++i] ?? '') : arg.slice(eq + 1));
      else if (eq < 0 && spec.valueLong.includes(name)) i += 1;
      continue;
    }
    if (!arg.startsWith('-')) {
      script = arg;
      continue;
    }
    for (let k = 1; k < arg.length; k += 1) {
      const letter = arg[k] as string;
      const rest = arg.slice(k + 1);
      if (spec.codeLetters.includes(letter)) {
        code.push(rest !== '' ? rest : (argv[++i] ?? ''));
        break;
      }
      if (letter === 'i' && (spec.language === 'perl' || spec.language === 'ruby')) {
        inPlace = true;
        break;
      }
      if (spec.valueLetters.includes(letter)) {
        const value = rest !== '' ? rest : argv[++i];
        if (letter === 'm' && spec.language === 'python') module = value;
        break;
      }
    }
  }
  return { code, inPlace, module, script, files, programEnd: programEnd < 0 ? argv.length : programEnd };
}

/** Options that print something and exit (no program runs, nothing is read from stdin). */
const INFO_OPTIONS = /^(?:--version|-V|--help|-h|-v|-version|--ini|-i|-m|-S|-a)$/;

function interpreter(ctx: RuleContext): void {
  const spec = INTERPRETERS.get(ctx.seg.family) ?? INTERPRETERS.get(ctx.seg.verb);
  if (spec === undefined) return;
  const program = parseInterpreter(ctx.seg.argv, spec);
  if (ctx.seg.args.slice(0, program.programEnd).some((word) => word.expanded))
    ctx.danger(DANGEROUS.unresolvedProgram);
  const fromStdin =
    program.code.length === 0 &&
    program.module === undefined &&
    (program.script === undefined || STDIN_FILES.test(program.script));
  const info =
    ctx.seg.argv.some((arg) => INFO_OPTIONS.test(arg)) &&
    (spec.language !== 'python' || !ctx.seg.argv.includes('-i'));
  if (fromStdin && !info) stdinProgram(ctx);
  if (program.code.length > 0) ctx.danger(DANGEROUS.scriptFlag);
  for (const code of program.code) ctx.scanCode(spec.language, code);
  if (program.module === 'pip' && operands(program.files)[0] === 'uninstall')
    ctx.danger(DANGEROUS.pkgUninstall);
  if (program.inPlace) inPlaceEdit(ctx, program.files);
  if (program.code.length === 0 && (program.script === undefined || program.script === '-')) {
    for (const body of heredocBodies(ctx.seg)) {
      ctx.danger(DANGEROUS.scriptHeredoc);
      ctx.scanCode(spec.language, body);
    }
  }
}

function inPlaceEdit(ctx: RuleContext, files: readonly string[]): void {
  for (const file of files) {
    if (isSensitiveUserPath(file)) ctx.danger(DANGEROUS.editSensitivePerl);
    if (isHermesConfigPath(file)) ctx.danger(DANGEROUS.editHermesPerl);
    else if (isHermesHomePath(file)) ctx.danger(DANGEROUS.hermesHomeEdit);
    if (isSystemConfigPath(file)) ctx.danger(DANGEROUS.editSystem);
  }
}

function deno(ctx: RuleContext): void {
  const [sub, code] = operands(ctx.seg.argv);
  if (sub !== 'eval' || code === undefined) return;
  ctx.danger(DANGEROUS.scriptFlag);
  ctx.scanCode('node', code);
}

/** An awk program: flagged when it is data (`awk "$prog"`, `-f /dev/stdin`) or loads a library. */
function awkProgram(ctx: RuleContext, word: ShellWord | undefined): void {
  if (word === undefined) return;
  if (word.expanded) ctx.danger(DANGEROUS.codeFromData);
  ctx.scanCode('awk', word.text);
}

function awk(ctx: RuleContext): void {
  const { args } = ctx.seg;
  let sourceGiven = false;
  for (let i = 0; i < args.length; i += 1) {
    const arg = (args[i] as ShellWord).text;
    if (arg === '--') {
      if (!sourceGiven) awkProgram(ctx, args[i + 1]);
      return;
    }
    if (arg === '-f' || arg === '--file' || (arg.startsWith('-f') && arg.length > 2)) {
      const file = arg.length > 2 && !arg.startsWith('--') ? arg.slice(2) : args[++i]?.text;
      if (file !== undefined && (STDIN_FILES.test(file) || (arg.length <= 2 && args[i]?.expanded === true)))
        ctx.danger(DANGEROUS.codeFromData);
      sourceGiven = true;
      continue;
    }
    if (arg === '-e' || arg === '--source') {
      awkProgram(ctx, args[++i]);
      sourceGiven = true;
      continue;
    }
    if (arg === '-l' || arg === '--load' || (arg.startsWith('-l') && arg.length > 2)) {
      ctx.danger(DANGEROUS.optionProgram);
      if (arg.length <= 2 || arg === '--load') i += 1;
      continue;
    }
    if (
      arg === '-v' ||
      arg === '-F' ||
      arg === '-i' ||
      arg === '--assign' ||
      arg === '--field-separator' ||
      arg === '--include'
    ) {
      i += 1;
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) continue;
    if (!sourceGiven) awkProgram(ctx, args[i]);
    return;
  }
}

const READ_TOOL_EXEC: ReadonlyMap<string, readonly string[]> = new Map([
  ['rg', ['--pre', '--hostname-bin']],
  ['sort', ['--compress-program']],
  ['ag', ['--pager']],
  ['man', ['--pager', '--html', '-P', '-H']],
]);

/** rg/sort/ag/man options that run a program; unquoted globs could expand into such options. */
function readTool(ctx: RuleContext): void {
  const { args, argv, verb } = ctx.seg;
  const execOptions = READ_TOOL_EXEC.get(verb) ?? [];
  let dynamic = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') break;
    const name = arg.split('=')[0] ?? arg;
    const option = execOptions.find((opt) => name === opt || (opt.length === 2 && arg.startsWith(opt)));
    if (option !== undefined) {
      ctx.danger(readToolExecKey(verb, option));
      // The program it names runs too: judge it (`man -P 'rm -rf ~' ls`).
      const value = arg.includes('=')
        ? arg.slice(arg.indexOf('=') + 1)
        : arg === option
          ? argv[i + 1]
          : arg.slice(2);
      if (value !== undefined && option !== '-H' && option !== '--html') ctx.scanShell(value, true);
    }
    if ((args[i] as ShellWord).dynamic) dynamic = true;
  }
  if (dynamic) ctx.danger(DANGEROUS.readToolDynamic);
}

export const interpreterRules: readonly VerbRules[] = [
  { verbs: [...INTERPRETERS.keys()], run: interpreter },
  { verbs: ['deno'], run: deno },
  { verbs: ['awk'], run: awk },
  { verbs: [...READ_TOOL_EXEC.keys()], run: readTool },
];
