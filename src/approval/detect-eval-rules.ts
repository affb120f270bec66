import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { heredocBodies, literalOutput } from './detect-literal-output.js';
import { STDIN_FILES, stdinProgram } from './detect-shell-call.js';
import { substitutedSources } from './detect-substituted-sources.js';
import { verbName } from './shell-segment.js';
import type { ShellList, ShellWord } from './shell-types.js';

/**
 * Code the shell itself runs from text: `eval`, `source`/`.`, `enable -f`, and the callbacks of
 * `mapfile -C`/`compgen -C`/`complete -C`.
 */

/**
 * Programs whose output is, by design, shell code that sets up the environment
 * (`eval "$(ssh-agent -s)"`, `source <(kubectl completion bash)`): the program is static and
 * so is what it prints, in kind. Anything else evaluated from a substitution is data.
 */
const SETUP_PRINTERS: ReadonlyMap<string, RegExp> = new Map([
  ['ssh-agent', /^(?:-[sc])?$/],
  ['direnv', /^(?:hook|export) \w+$/],
  ['pyenv', /^(?:init|virtualenv-init)(?: -| --path)*$/],
  ['rbenv', /^init(?: -)?$/],
  ['nodenv', /^init(?: -)?$/],
  ['goenv', /^init(?: -)?$/],
  ['jenv', /^init(?: -)?$/],
  ['brew', /^shellenv(?: \w+)?$/],
  ['fnm', /^env(?: --[\w-]+(?:=\S+)?)*$/],
  ['zoxide', /^init \w+(?: --[\w-]+(?: \w+)?)*$/],
  ['starship', /^init \w+$/],
  ['mise', /^activate \w+$/],
  ['conda', /^shell\.\w+ hook$/],
  ['opam', /^env(?: --[\w-]+)*$/],
  ['dircolors', /^(?:-[bc])?(?: [\w./~-]+)?$/],
  ['keychain', /^--eval(?: [\w./~-]+)*$/],
  ['thefuck', /^--alias(?: \w+)?$/],
  ['luarocks', /^path$/],
]);

/** A substitution word that only runs a setup printer or a `completion` generator. */
function setupPrinter(ctx: RuleContext, word: ShellWord): boolean {
  const sub = word.subs[0];
  if (word.subs.length !== 1 || sub === undefined) return false;
  const segments = ctx.segmentsOf(sub.list);
  const only = segments.length === 1 ? segments[0] : undefined;
  const words = only?.command.words ?? [];
  const first = words[0];
  if (first === undefined || words.some((w) => w.expanded) || (only?.assignments.length ?? 0) > 0)
    return false;
  const args = words
    .slice(1)
    .map((w) => w.text)
    .join(' ');
  if (/^(?:completions?|--completion) (?:-s )?(?:bash|zsh|fish)$/.test(args)) return true;
  return SETUP_PRINTERS.get(verbName(first.text))?.test(args) === true;
}

function evalRule(ctx: RuleContext): void {
  const words = ctx.seg.args;
  if (words.length === 1 && setupPrinter(ctx, words[0] as ShellWord)) return;
  if (words.some((word) => word.expanded)) ctx.danger(DANGEROUS.codeFromData);
  if (ctx.seg.argv.length > 0) ctx.scanShell(ctx.seg.argv.join(' '), false, ctx.positional);
  // `eval "$(echo …)"`: what the substitution prints is what runs.
  for (const word of words) {
    if (word.subs.length !== 1) continue;
    const segments = ctx.segmentsOf((word.subs[0] as { list: ShellList }).list);
    const only = segments.length === 1 ? segments[0] : undefined;
    for (const text of only === undefined ? [] : (literalOutput(only) ?? []))
      ctx.scanShell(text, false, ctx.positional);
  }
  substitutedSources(ctx);
}

/** `source FILE` / `. FILE`: a plain path is like running a script; anything else is data. */
function sourceRule(ctx: RuleContext): void {
  const file = ctx.seg.args.find((word) => word.text !== '--');
  if (file !== undefined) {
    if (file.subs.some((sub) => sub.kind === 'process-in' || sub.kind === 'process-out')) {
      if (!setupPrinter(ctx, file)) ctx.danger(DANGEROUS.codeFromData);
    } else if (file.expanded) ctx.danger(DANGEROUS.unresolvedProgram);
    if (STDIN_FILES.test(file.text) && file.text !== '-') {
      stdinProgram(ctx);
      for (const body of heredocBodies(ctx.seg)) {
        ctx.danger(DANGEROUS.shellHeredoc);
        ctx.scanShell(body, false, ctx.positional);
      }
    }
  }
  substitutedSources(ctx);
}

/** `enable -f lib.so name` loads a builtin from a shared object into the shell. */
function enable(ctx: RuleContext): void {
  if (ctx.seg.argv.some((arg) => /^-[a-zA-Z]*f/.test(arg))) ctx.danger(DANGEROUS.optionProgram);
}

/** `mapfile -C CALLBACK`, `compgen -C CMD`, `complete -C CMD`: the shell runs the text. */
function callbacks(ctx: RuleContext): void {
  const { args } = ctx.seg;
  for (let i = 0; i < args.length; i += 1) {
    const arg = (args[i] as ShellWord).text;
    if (arg === '-C') ctx.runPayload(args[i + 1], ctx.positional);
    else if (/^-C./.test(arg))
      ctx.runPayload({ ...(args[i] as ShellWord), text: arg.slice(2) }, ctx.positional);
  }
}

export const evalRules: readonly VerbRules[] = [
  { verbs: ['eval'], run: evalRule },
  { verbs: ['source', '.'], run: sourceRule },
  { verbs: ['enable'], run: enable },
  { verbs: ['mapfile', 'readarray', 'compgen', 'complete'], run: callbacks },
];
