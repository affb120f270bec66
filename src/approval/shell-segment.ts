import type { ShellCommand, ShellRedirect, ShellWord } from './shell-types.js';
import { longKind, WRAPPERS, type WrapperSpec } from './shell-wrappers.js';

export { resolveLongOption } from './shell-wrappers.js';

/** A wrapper peeled off a command (`sudo -u x`, `env A=1`, `nohup`…) with its own options. */
export interface ShellWrapper {
  readonly name: string;
  readonly options: readonly string[];
}

/** One simple command after wrapper peeling: what actually runs, and how it was reached. */
export interface Segment {
  readonly command: ShellCommand;
  /** Lower-case base name of the program (`/usr/bin/RM.exe` → `rm`); '' when none. */
  readonly verb: string;
  /** Rule family of the verb (`python3.11` → `python`, `mkfs.ext4` → `mkfs`, `zsh` → `shell`). */
  readonly family: string;
  readonly verbWord: ShellWord | undefined;
  readonly args: readonly ShellWord[];
  /** Argument texts as written (case kept). */
  readonly argv: readonly string[];
  /** Argument texts lower-cased. */
  readonly argl: readonly string[];
  readonly wrappers: readonly ShellWrapper[];
  /** `NAME=value` assignments in front of the command or given to `env`. */
  readonly assignments: readonly string[];
  readonly redirects: readonly ShellRedirect[];
  readonly background: boolean;
  /** The words of those assignments (their values may hold expansions). */
  readonly assignmentWords: readonly ShellWord[];
  /**
   * Index in `command.words` of a word a wrapper option might take as its value (an unknown or
   * ambiguous long option came before it); -1 when peeling was certain. The detector then also
   * reads the command as starting after that word.
   */
  readonly uncertain: number;
}

/** Reserved words that may precede a command without being one. */
const KEYWORDS = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
  '!',
  '{',
  '}',
  'coproc',
]);
/** Reserved words after which the rest of the simple command is not a command. */
const NON_COMMANDS = new Set(['for', 'select', 'case', 'in', 'esac']);

export const SHELL_NAMES: readonly string[] = [
  'bash',
  'sh',
  'zsh',
  'ksh',
  'dash',
  'ash',
  'mksh',
  'yash',
  'fish',
  'csh',
  'tcsh',
  'rbash',
];
const SHELLS: ReadonlySet<string> = new Set(SHELL_NAMES);

/** Lower-case base name without directory or `.exe`. */
export function verbName(text: string): string {
  const slash = Math.max(text.lastIndexOf('/'), text.lastIndexOf('\\'));
  let name = (slash >= 0 ? text.slice(slash + 1) : text).toLowerCase();
  if (name.endsWith('.exe')) name = name.slice(0, -4);
  return name;
}

/** Maps versioned or variant program names onto the name their rules are filed under. */
export function verbFamily(verb: string): string {
  if (SHELLS.has(verb)) return 'shell';
  switch (verb.charCodeAt(0)) {
    case 0x70: // p
      if (/^(?:python[0-9.]*|py|pypy[0-9.]*)$/.test(verb)) return 'python';
      if (/^pip[0-9.]*$/.test(verb)) return 'pip';
      if (/^perl[0-9.]*$/.test(verb)) return 'perl';
      if (/^php[0-9.]*$/.test(verb)) return 'php';
      if (verb === 'pwsh') return 'powershell';
      if (verb === 'podman-compose') return 'compose';
      return verb;
    case 0x6d: // m
      if (verb.startsWith('mkfs')) return 'mkfs';
      return verb === 'mawk' ? 'awk' : verb;
    case 0x6e: // n
      if (verb.startsWith('newfs')) return 'newfs';
      if (/^(?:node[0-9]*|nodejs)$/.test(verb)) return 'node';
      return verb === 'nawk' ? 'awk' : verb;
    case 0x72: // r
      return /^ruby[0-9.]*$/.test(verb) ? 'ruby' : verb;
    case 0x6c: // l
      return /^(?:lua[0-9.]*|luajit)$/.test(verb) ? 'lua' : verb;
    case 0x67: // g
      return verb === 'gawk' ? 'awk' : verb;
    case 0x64: // d
      return verb === 'docker-compose' ? 'compose' : verb;
    case 0x76: // v
    case 0x6b: // k
      return verb === 'valkey-cli' || verb === 'keydb-cli' ? 'redis-cli' : verb;
    default:
      return verb;
  }
}

/** True for `NAME=value` / `NAME+=value`. */
export function isAssignment(text: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(text);
}

/** Peels keywords, assignments and wrappers off a simple command. */
export function peelCommand(command: ShellCommand): Segment {
  const words = command.words;
  const wrappers: ShellWrapper[] = [];
  const assignmentWords: ShellWord[] = [];
  const peel = { uncertain: -1 };
  let i = 0;
  let skipName = false;
  let verbIndex = -1;
  // Every step consumes at least one word, so peeling is linear however many wrappers there are.
  while (i < words.length) {
    const word = words[i] as ShellWord;
    const text = word.text;
    if (skipName) {
      skipName = false;
      i += 1;
      continue;
    }
    if (isAssignment(text)) {
      assignmentWords.push(word);
      i += 1;
      continue;
    }
    const lower = text.toLowerCase();
    if (!word.quoted && KEYWORDS.has(lower)) {
      i += 1;
      continue;
    }
    if (!word.quoted && lower === 'function') {
      skipName = true;
      i += 1;
      continue;
    }
    if (!word.quoted && NON_COMMANDS.has(lower)) {
      verbIndex = -2;
      break;
    }
    const name = verbName(text);
    const spec = word.expanded ? undefined : WRAPPERS.get(name);
    if (spec === undefined) {
      verbIndex = i;
      break;
    }
    const end = wrapperEnd(words, i + 1, spec, assignmentWords, peel);
    if (end < 0 || end >= words.length) {
      // The wrapper runs nothing we can see (`sudo -s`, `command -v x`, `env -S '…'`).
      if (end < 0) verbIndex = i;
      else wrappers.push({ name, options: texts(words, i + 1, end) });
      i = words.length;
      break;
    }
    wrappers.push({ name, options: texts(words, i + 1, end) });
    i = end;
  }
  if (verbIndex === -1 && i < words.length) verbIndex = i;
  const verbWord = verbIndex >= 0 ? words[verbIndex] : undefined;
  const args = verbIndex >= 0 ? words.slice(verbIndex + 1) : verbIndex === -2 ? words.slice(i) : [];
  const verb = verbWord === undefined ? '' : verbName(verbWord.text);
  const argv = args.map((arg) => arg.text);
  return {
    command,
    verb,
    family: verbFamily(verb),
    verbWord,
    args,
    argv,
    argl: argv.map((text) => text.toLowerCase()),
    wrappers,
    assignments: assignmentWords.map((word) => word.text),
    redirects: command.redirects,
    background: command.background,
    assignmentWords,
    uncertain: peel.uncertain,
  };
}

/** Index of the wrapped command, or -1 when this wrapper does not run one. */
function wrapperEnd(
  words: readonly ShellWord[],
  start: number,
  spec: WrapperSpec,
  assignments: ShellWord[],
  peel: { uncertain: number },
): number {
  let i = start;
  let positional = spec.positional ?? 0;
  while (i < words.length) {
    const word = words[i] as ShellWord;
    const text = word.text;
    if (text === '--') return i + 1 + positional;
    if (text.startsWith('--')) {
      const eq = text.indexOf('=');
      const kind = longKind(spec, (eq < 0 ? text : text.slice(0, eq)).slice(2).toLowerCase());
      if (kind === 'stop') return -1;
      if (kind === undefined) {
        // Unknown or ambiguous: the program would refuse it, or the next word is its value.
        if (eq < 0 && peel.uncertain < 0) peel.uncertain = i + 1;
        i += 1;
      } else if (kind === 'optional' || kind === 0) {
        i += 1;
      } else {
        i += 1 + (eq < 0 ? kind : kind - 1);
      }
      continue;
    }
    if (text.startsWith('-') && text.length > 1) {
      const letters = text.slice(1);
      if (/^[0-9]+$/.test(letters)) {
        i += 1;
        continue;
      }
      let consumesNext = false;
      for (let k = 0; k < letters.length; k += 1) {
        const letter = letters[k] as string;
        if (spec.stopShort?.includes(letter)) return -1;
        if (spec.valueShort?.includes(letter)) {
          consumesNext = k === letters.length - 1;
          break;
        }
      }
      i += consumesNext ? 2 : 1;
      continue;
    }
    // env and sudo take any `NAME=VALUE` word before the command, whatever the name holds.
    if (spec.assignments === true && /^[^=-][^=]*=/.test(text)) {
      assignments.push(word);
      i += 1;
      continue;
    }
    if (positional > 0) {
      positional -= 1;
      i += 1;
      continue;
    }
    return i;
  }
  return i;
}

function texts(words: readonly ShellWord[], from: number, to: number): string[] {
  const out: string[] = [];
  for (let i = from; i < to && i < words.length; i += 1) out.push((words[i] as ShellWord).text);
  return out;
}

/** Splits option words from operands; everything after `--` is an operand. */
export function operands(argv: readonly string[]): string[] {
  const out: string[] = [];
  let options = true;
  for (const arg of argv) {
    if (options && arg === '--') options = false;
    else if (!options || !arg.startsWith('-') || arg === '-') out.push(arg);
  }
  return out;
}

/** The letters of short-option clusters before `--` (`-rf` → r, f), case kept. */
export function shortLetters(argv: readonly string[]): string {
  let out = '';
  for (const arg of argv) {
    if (arg === '--') break;
    if (arg.length > 1 && arg.startsWith('-') && !arg.startsWith('--')) out += arg.slice(1);
  }
  return out;
}

/** Long options before `--`, lower-cased and without `=value`. */
export function longOptions(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (const arg of argv) {
    if (arg === '--') break;
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=');
      out.push((eq < 0 ? arg : arg.slice(0, eq)).toLowerCase());
    }
  }
  return out;
}
