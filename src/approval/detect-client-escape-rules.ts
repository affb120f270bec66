import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { heredocBodies } from './detect-literal-output.js';
import type { ShellWord } from './shell-types.js';

/**
 * Interactive programs driven from the command line or stdin whose command language reaches a
 * shell: vim/ex `-c '!…'`, ed `!`, gdb `-ex shell …`, lldb `-o 'platform shell …'`, sqlite3
 * `.shell`/`.system`/`.load`, psql `\!` and `COPY … PROGRAM`, mysql `system`/`\!`/`pager`.
 * Text they read from a literal stdin is checked by the pipeline rules through `clientText`.
 */

export type ClientLanguage = 'ex' | 'sqlite' | 'psql' | 'mysql';

/** The language a program reads on stdin, when it is one of these clients. */
export function clientLanguage(verb: string, argv: readonly string[]): ClientLanguage | undefined {
  if (verb === 'ed' || verb === 'red' || verb === 'ex') return 'ex';
  if (
    (verb === 'vim' || verb === 'vi' || verb === 'nvim') &&
    argv.some((arg) => /^-[a-zA-Z]*[eE]/.test(arg) || arg === '-s')
  )
    return 'ex';
  if (verb === 'sqlite3' || verb === 'sqlite') return 'sqlite';
  if (verb === 'psql') return 'psql';
  if (verb === 'mysql' || verb === 'mariadb') return 'mysql';
  return undefined;
}

/** Flags and scans the shell escapes in text a client reads as commands. */
export function clientText(ctx: RuleContext, language: ClientLanguage, text: string): void {
  const key = language === 'ex' ? DANGEROUS.editorExec : DANGEROUS.dbClientShell;
  for (const raw of text.split(/\n|;(?=\s*[.\\])/)) {
    const line = raw.trim();
    if (line === '') continue;
    const command = escapeOf(language, line);
    if (command === undefined) continue;
    ctx.danger(key);
    if (command !== '') ctx.scanShell(command, true);
  }
}

/** The shell command a client line runs (`''` when it loads code or runs something unseen). */
function escapeOf(language: ClientLanguage, line: string): string | undefined {
  const lower = line.toLowerCase();
  switch (language) {
    case 'ex':
      return exShell(line);
    case 'sqlite': {
      const dot = /^\.(shell|system|load|output|once|read|import|excel)\b\s*(.*)$/is.exec(line);
      if (dot !== null) {
        const [, name, rest] = dot as unknown as [string, string, string];
        if (name === 'shell' || name === 'system') return rest;
        if (name === 'load' || name === 'excel') return '';
        const pipe = /^['"]?\|(.*?)['"]?$/s.exec(rest.trim());
        return pipe === null ? undefined : (pipe[1] ?? '');
      }
      return /\b(?:load_extension|edit)\s*\(/.test(lower) ? '' : undefined;
    }
    case 'psql': {
      if (line.startsWith('\\!')) return line.slice(2);
      const pipe = /^\\(?:o|out|g|gx|w|write)\s+\|(.*)$/s.exec(line);
      if (pipe !== null) return pipe[1] ?? '';
      if (/^\\setenv\s+(?:psql_)?pager/i.test(line)) return '';
      const program = /\b(?:from|to)\s+program\s+(?:e?'((?:[^']|'')*)')?/i.exec(line);
      if (program !== null) return (program[1] ?? '').replaceAll("''", "'");
      return undefined;
    }
    case 'mysql': {
      const shell = /^(?:\\!|system\b)\s*(.*)$/is.exec(line);
      if (shell !== null) return shell[1] ?? '';
      const pager = /^(?:\\P|pager\b)\s*(.*)$/is.exec(line);
      if (pager !== null) return pager[1] ?? '';
      return undefined;
    }
    default:
      return undefined;
  }
}

/** Range prefix of an ex command (`%`, `1,$`, `.`, `'a`, `/re/`). */
const EX_RANGE = /^:*\s*(?:[%.$0-9,;+-]|'[a-z<>]|\/(?:[^/\\]|\\.)*\/|\?(?:[^?\\]|\\.)*\?)*\s*/;

/**
 * The shell command an ex/ed/vim command runs: `!cmd`, `range!filter`, `r !cmd`, `w !cmd`;
 * `''` for commands that reach a shell or another language unseen (`system()`, `:terminal`,
 * `:python`…); undefined for ordinary editing (`%s/a/b/g`, `wq!`).
 */
export function exShell(command: string): string | undefined {
  const rest = command.replace(EX_RANGE, '');
  if (rest.startsWith('!')) return rest.slice(1);
  const io = /^(?:r(?:ead)?|w(?:rite)?|e(?:dit)?|new|vne(?:w)?|sp(?:lit)?|vs(?:plit)?)\s+!(.*)$/s.exec(rest);
  if (io !== null) return io[1] ?? '';
  return /\b(?:system|systemlist|call|exe(?:cute)?|norm(?:al)?|py(?:thon)?3?|pyx|lua|perl|ruby|mz(?:scheme)?|tcl|ter(?:minal)?|so(?:urce)?|sh(?:ell)?|make|grep|lgrep|cexpr|libcall)\b/i.test(
    rest,
  )
    ? ''
    : undefined;
}

function values(args: readonly ShellWord[], short: readonly string[], long: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = (args[i] as ShellWord).text;
    const eq = arg.indexOf('=');
    const name = eq >= 0 && arg.startsWith('--') ? arg.slice(0, eq) : arg;
    if (short.includes(arg) || long.includes(arg)) {
      const value = args[i + 1]?.text;
      if (value !== undefined) out.push(value);
      i += 1;
    } else if (long.includes(name)) out.push(arg.slice(eq + 1));
  }
  return out;
}

function stdinBodies(ctx: RuleContext, language: ClientLanguage): void {
  for (const body of heredocBodies(ctx.seg)) clientText(ctx, language, body);
}

/** vim/vi/nvim/view/ex: commands given with `-c`, `--cmd`, `+cmd`, `-S`, `-s`, `-u`. */
function vim(ctx: RuleContext): void {
  const { args } = ctx.seg;
  // In Ex mode (`ex`, `vim -e`) `-s` means silent; otherwise it names a script of typed keys.
  const exMode =
    ctx.seg.verb === 'ex' || ctx.seg.argv.some((arg) => /^-[a-zA-Z]*[eE]/.test(arg) && !arg.startsWith('--'));
  const commands = values(args, ['-c', '-S', ...(exMode ? [] : ['-s']), '-u', '-U', '-W', '-w'], ['--cmd']);
  for (const word of args) {
    const arg = word.text;
    if (arg.startsWith('+') && arg.length > 1 && !/^\+(?:[0-9]+|\/.*)$/.test(arg))
      commands.push(arg.slice(1));
  }
  const inert = (text: string): boolean => /^(?:NONE|NORC|DEFAULTS)$/.test(text);
  const active = commands.filter((text) => !inert(text));
  if (active.length > 0) ctx.danger(DANGEROUS.editorExec);
  for (const command of active) {
    const shell = exShell(command);
    if (shell !== undefined && shell !== '') ctx.scanShell(shell, true);
  }
  const language = clientLanguage(ctx.seg.verb, ctx.seg.argv);
  if (language !== undefined) stdinBodies(ctx, language);
}

function ed(ctx: RuleContext): void {
  stdinBodies(ctx, 'ex');
}

/** gdb `-ex`/`-x`/`-iex`/`-ix`, lldb `-o`/`-O`/`-s`/`-S`/`-k`/`-K`: debugger commands from options. */
function debugger_(ctx: RuleContext): void {
  const gdb = ctx.seg.verb !== 'lldb';
  const commands = gdb
    ? values(
        ctx.seg.args,
        [
          '-ex',
          '--ex',
          '-iex',
          '--iex',
          '-x',
          '--x',
          '-ix',
          '--ix',
          '-command',
          '--command',
          '-eval-command',
          '--eval-command',
        ],
        [
          '--eval-command',
          '--init-eval-command',
          '--command',
          '--init-command',
          '-eval-command',
          '-init-eval-command',
        ],
      )
    : values(
        ctx.seg.args,
        ['-o', '-O', '-s', '-S', '-k', '-K'],
        [
          '--one-line',
          '--one-line-before-file',
          '--source',
          '--source-before-file',
          '--one-line-on-crash',
          '--source-on-crash',
        ],
      );
  if (commands.length === 0) return;
  ctx.danger(DANGEROUS.debuggerExec);
  for (const command of commands) {
    const shell = /^(?:shell|!|platform\s+shell|pipe\s.*?\|)\s*(.*)$/is.exec(command.trim());
    if (shell !== null) ctx.scanShell(shell[1] ?? '', true);
  }
}

function sqlite(ctx: RuleContext): void {
  const { argv } = ctx.seg;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '-cmd' || arg === '--cmd') {
      clientText(ctx, 'sqlite', argv[i + 1] ?? '');
      i += 1;
    } else if (arg === '-init' || arg === '--init') {
      const file = argv[i + 1] ?? '';
      if (/^(?:-|\/dev\/stdin|\/dev\/fd\/[0-9]+)$/.test(file)) ctx.danger(DANGEROUS.codeFromData);
      i += 1;
    } else if (!arg.startsWith('-')) clientText(ctx, 'sqlite', arg);
  }
  stdinBodies(ctx, 'sqlite');
}

function psql(ctx: RuleContext): void {
  for (const command of values(ctx.seg.args, ['-c'], ['--command'])) clientText(ctx, 'psql', command);
  stdinBodies(ctx, 'psql');
}

function mysql(ctx: RuleContext): void {
  for (const command of values(ctx.seg.args, ['-e'], ['--execute'])) clientText(ctx, 'mysql', command);
  for (const pager of values(ctx.seg.args, [], ['--pager'])) {
    ctx.danger(DANGEROUS.dbClientShell);
    ctx.scanShell(pager, true);
  }
  stdinBodies(ctx, 'mysql');
}

export const clientEscapeRules: readonly VerbRules[] = [
  { verbs: ['vim', 'vi', 'nvim', 'view', 'vimdiff', 'gvim', 'rvim', 'ex'], run: vim },
  { verbs: ['ed', 'red'], run: ed },
  { verbs: ['gdb', 'lldb'], run: debugger_ },
  { verbs: ['sqlite3', 'sqlite'], run: sqlite },
  { verbs: ['psql'], run: psql },
  { verbs: ['mysql', 'mariadb'], run: mysql },
];
