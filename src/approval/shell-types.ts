/**
 * What the shell scanner produces: a flat list of simple commands per command list, the
 * pipelines that connect them, and for each word its decoded text plus how it was written.
 * Nothing is expanded or executed; variables stay as their source text.
 */

export type SubstitutionKind = 'command' | 'backtick' | 'process-in' | 'process-out';

export interface ShellSubstitution {
  readonly kind: SubstitutionKind;
  readonly list: ShellList;
}

export interface ShellWord {
  /** Text after quote removal and escape decoding (`r\m` → `rm`, `r''m` → `rm`). */
  readonly text: string;
  /** Some part was quoted or backslash-escaped. */
  readonly quoted: boolean;
  /** Holds an unquoted glob character or an unquoted expansion: its run-time value may differ. */
  readonly dynamic: boolean;
  /** The last path component mixes expansions with text, or holds several (`r${x}m`, `$a$b`). */
  readonly mixedName: boolean;
  /** Set when the whole word is exactly one `$NAME` / `${NAME}` expansion. */
  readonly expansionName: string | undefined;
  /** That single expansion was unquoted (its value would be split into words). */
  readonly expansionUnquoted: boolean;
  /** Command and process substitutions written inside this word. */
  readonly subs: readonly ShellSubstitution[];
  /**
   * Holds a parameter expansion, command/process substitution or arithmetic that could not be
   * folded to a constant, quoted or not: its value is not known before it runs. Positional
   * parameters (`$1`, `$@`) count until the detector resolves them.
   */
  readonly expanded: boolean;
  /** Holds an unquoted expansion: word splitting and globbing may turn it into several words. */
  readonly splittable: boolean;
  /** The last path component holds an expansion or an unquoted glob character. */
  readonly baseDynamic: boolean;
  /** The last path component holds an unquoted glob character (`r?`, `r[m]`, `*`). */
  readonly baseGlob: boolean;
  /** Elements of an array assignment `NAME=(a b c)`, when this word is one. */
  readonly elements?: readonly ShellWord[];
  /**
   * For a word mixing text with plain variable expansions only (`"$dir/rm"`, `r${x}m`): its
   * pieces, so names bound earlier in the command can be folded in.
   */
  readonly parts?: readonly WordPart[];
}

/** A piece of a word: literal text, or a `$NAME` / `${NAME}` expansion. */
export type WordPart = { readonly text: string } | { readonly name: string; readonly quoted: boolean };

export interface ShellRedirect {
  /** `>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&`, `<`, `<&`, `<<`, `<<-`, `<<<`. */
  readonly op: string;
  /** File descriptor written before the operator, when any. */
  readonly fd: number | undefined;
  /** The target word (for heredocs: the delimiter). */
  readonly target: ShellWord | undefined;
  /** Heredoc or here-string text fed to the command's stdin. */
  readonly body: string | undefined;
  /** Substitutions run while expanding an unquoted heredoc body. */
  readonly bodySubs: readonly ShellSubstitution[];
}

export interface ShellCommand {
  readonly words: readonly ShellWord[];
  readonly redirects: readonly ShellRedirect[];
  /** The pipeline it belongs to ends with a single `&`. */
  readonly background: boolean;
  /** Written inside a function body: its positional parameters are the call's arguments. */
  readonly inFunction?: boolean;
}

/** A pipeline: stages in order; each stage lists indexes into `ShellList.commands`. */
export type ShellPipeline = readonly (readonly number[])[];

export interface ShellList {
  /** Every simple command of this list in source order, groups `( … )` / `{ …; }` flattened in. */
  readonly commands: readonly ShellCommand[];
  /** Pipelines with at least two stages. */
  readonly pipelines: readonly ShellPipeline[];
}

export interface ShellParse {
  readonly list: ShellList;
  /** An unterminated quote, substitution or group: the shell would refuse it. */
  readonly malformed: boolean;
  /** Nesting went deeper than the scanner allows; the rest was not read. */
  readonly overflow: boolean;
}
