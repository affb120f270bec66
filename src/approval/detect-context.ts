import type { Positional } from './detect-bindings.js';
import type { Segment } from './shell-segment.js';
import type { ShellList, ShellWord } from './shell-types.js';

/** Languages whose inline programs are scanned (`python -c`, `node -e`, heredocs into them…). */
export type CodeLanguage =
  | 'python'
  | 'node'
  | 'ruby'
  | 'perl'
  | 'php'
  | 'lua'
  | 'osascript'
  | 'r'
  | 'awk'
  | 'tcl';

/** What a rule sees and may do while one simple command is examined. */
export interface RuleContext {
  readonly seg: Segment;
  /** Another command of the same list is `disown` (the gateway-detach family needs it). */
  readonly listHasDisown: boolean;
  /** Stdin comes from an earlier stage of a pipeline (judged by the pipeline rules). */
  readonly stdinPiped: boolean;
  /** Positional parameters (`$0`, `$1`…) where this command runs; null when not known. */
  readonly positional: Positional;
  danger(key: string): void;
  hardline(key: string): void;
  /**
   * Scans shell text that will be executed (`bash -c`, `eval`, `ssh host …`, heredocs into a
   * shell…) one level deeper. `lenient` text may not be shell at all (strings from a Python
   * program): malformed quoting there is not a finding. `positional` are the parameters the
   * text runs with (default: not known).
   */
  scanShell(text: string, lenient?: boolean, positional?: Positional): void;
  /**
   * Scans a word another program runs as shell text (`bash -c WORD`, `eval WORD`, `su -c WORD`).
   * When the word's value is only known at run time (it holds an expansion the outer shell
   * performs) the command is flagged as code built from data; its text is scanned either way.
   */
  runPayload(word: ShellWord | undefined, positional?: Positional): void;
  /** Examines words as one more simple command (`find -exec …`, `xargs …`, `docker exec …`). */
  scanWords(words: readonly ShellWord[]): void;
  /** Scans an inline program. */
  scanCode(language: CodeLanguage, code: string): void;
  /** Flags destructive SQL in text a database client will run. */
  scanSql(text: string): void;
  /** Peeled simple commands of a substitution's list. */
  segmentsOf(list: ShellList): readonly Segment[];
}

export type Rule = (ctx: RuleContext) => void;

/** Rules filed under verb families (see `verbFamily`). */
export interface VerbRules {
  readonly verbs: readonly string[];
  readonly run: Rule;
}
