import {
  baseName,
  boundNames,
  copyOperands,
  decodeBackslashes,
  makefileOf,
  normalizePath,
  replaceVerb,
  splitFields,
  valueWord,
} from './detect-binding-helpers.js';
import { DANGEROUS } from './detect-keys.js';
import { literalOutput } from './detect-literal-output.js';
import { isAssignment, operands, peelCommand, type Segment, verbName } from './shell-segment.js';
import type { ShellCommand, ShellList, ShellRedirect, ShellWord } from './shell-types.js';
import { staticWord } from './shell-word-builder.js';

/**
 * What names mean while the commands of one list run, in order: variables and arrays assigned
 * a constant (`d=/; rm -rf $d`), positional parameters (`set -- …`, a `bash -c` payload's
 * arguments), and names rebound by `alias`, `hash -p`, or a copy/link of a program
 * (`cp /bin/rm ./ls`), plus files written earlier in the list. A name whose value the detector
 * cannot be sure of (assigned twice, read, bound in a loop or function, touched by `eval`)
 * is unknown, so an expansion of it stays unresolved instead of taking a stale value.
 */

/** `$0 $1 …` when known (`$0` first); null when not known (a function body, xargs input). */
export type Positional = readonly string[] | null;

/** Something about one command that its position in the list revealed. */
export interface SegmentNote {
  readonly key: string;
  /** Shell text that runs in its place or because of it (alias text, a script written earlier). */
  readonly scan?: string;
}

export interface BoundList {
  readonly segments: Segment[];
  /** Per segment, in order; undefined when there is nothing to add. */
  readonly notes: readonly (readonly SegmentNote[] | undefined)[];
}

type Value =
  | { readonly kind: 'scalar'; readonly text: string }
  | { readonly kind: 'list'; readonly items: readonly string[]; readonly joined: boolean };

const MAX_NAMES = 64;
const MAX_VALUE_LENGTH = 256;
const MAX_ITEMS = 64;
const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);
/** Directories on a usual PATH: a program copied there is found by its bare name. */
const PATH_DIRS =
  /^(?:\/usr\/local\/s?bin|\/usr\/s?bin|\/s?bin|~\/bin|~\/\.local\/bin|\/opt\/[^/]+\/bin)\/[^/]+$/;
const SCRIPT_RUNNERS = new Set([
  'shell',
  'source',
  '.',
  'python',
  'node',
  'perl',
  'ruby',
  'php',
  'bun',
  'lua',
]);

class ListBinder {
  private readonly vars = new Map<string, readonly string[] | null>();
  private positional: string[] | null;
  private ifsChanged = false;
  private readonly aliases = new Map<string, string | null>();
  private readonly hashed = new Map<string, string | null>();
  private readonly copies = new Map<string, string | null>();
  private readonly written = new Map<string, string | null>();

  constructor(positional: Positional) {
    this.positional = positional === null ? null : [...positional];
  }

  bind(command: ShellCommand): { seg: Segment; notes: SegmentNote[] | undefined } {
    const inFunction = command.inFunction === true;
    let seg = peelCommand(this.substitute(command, inFunction));
    const notes: SegmentNote[] = [];
    seg = this.rebind(seg, notes);
    this.record(seg, inFunction);
    return { seg, notes: notes.length > 0 ? notes : undefined };
  }

  // --- reading names -------------------------------------------------------------------------

  private lookup(name: string, inFunction: boolean): Value | undefined {
    if (/^[0-9@*#]/.test(name)) {
      const pos = inFunction ? null : this.positional;
      if (pos === null) return undefined;
      if (name === '@' || name === '*') return { kind: 'list', items: pos.slice(1), joined: name === '*' };
      if (name === '#') return { kind: 'scalar', text: String(Math.max(0, pos.length - 1)) };
      return { kind: 'scalar', text: pos[Number(name)] ?? '' };
    }
    const bracket = name.indexOf('[');
    if (bracket > 0) {
      const items = this.vars.get(name.slice(0, bracket));
      if (items === undefined || items === null) return undefined;
      const index = name.slice(bracket + 1, -1);
      if (index === '@' || index === '*') return { kind: 'list', items, joined: index === '*' };
      return { kind: 'scalar', text: items[Number(index)] ?? '' };
    }
    const items = this.vars.get(name);
    if (items === undefined || items === null) return undefined;
    return { kind: 'scalar', text: items[0] ?? '' };
  }

  /** `"$dir/rm"`, `r${x}m` with every name bound to a constant: the word as text. */
  private fold(word: ShellWord, inFunction: boolean): ShellWord[] | undefined {
    let text = '';
    for (const part of word.parts ?? []) {
      if ('text' in part) {
        text += part.text;
        continue;
      }
      const value = this.lookup(part.name, inFunction);
      if (value === undefined || value.kind !== 'scalar') return undefined;
      // Unquoted, a value with blanks or glob characters would split or match files.
      if (!part.quoted && (this.ifsChanged || /[\s*?[]/.test(value.text))) return undefined;
      text += value.text;
    }
    return [{ ...staticWord(text, word.quoted), mixedName: word.mixedName }];
  }

  private expand(word: ShellWord, inFunction: boolean): ShellWord[] | undefined {
    if (word.parts !== undefined) return this.fold(word, inFunction);
    const name = word.expansionName;
    if (name === undefined) return undefined;
    const value = this.lookup(name, inFunction);
    if (value === undefined) return undefined;
    const unquoted = word.expansionUnquoted;
    if (unquoted && this.ifsChanged) return undefined;
    if (value.kind === 'scalar') {
      if (!unquoted) return [valueWord(value.text, true)];
      return splitFields(value.text).map((part) => valueWord(part, false));
    }
    if (!unquoted) {
      return value.joined
        ? [valueWord(value.items.join(' '), true)]
        : value.items.map((item) => valueWord(item, true));
    }
    return value.items.flatMap((item) => splitFields(item).map((part) => valueWord(part, false)));
  }

  private substitute(command: ShellCommand, inFunction: boolean): ShellCommand {
    let changed = false;
    const words: ShellWord[] = [];
    for (const word of command.words) {
      const replaced = this.expand(word, inFunction);
      if (replaced === undefined) words.push(word);
      else {
        changed = true;
        words.push(...replaced);
      }
    }
    const redirects = command.redirects.map((redirect): ShellRedirect => {
      const target = redirect.target;
      const replaced = target === undefined ? undefined : this.expand(target, inFunction);
      if (replaced === undefined || replaced.length !== 1) return redirect;
      changed = true;
      return { ...redirect, target: replaced[0] };
    });
    return changed ? { ...command, words, redirects } : command;
  }

  // --- names rebound earlier -----------------------------------------------------------------

  private rebind(seg: Segment, notes: SegmentNote[]): Segment {
    const word = seg.verbWord;
    if (word === undefined || word.expanded) return seg;
    const raw = word.text;
    let out = seg;
    if (!word.quoted && this.aliases.has(raw)) {
      const text = this.aliases.get(raw);
      notes.push(
        text === null || text === undefined
          ? { key: DANGEROUS.unresolvedCommand }
          : { key: DANGEROUS.reboundName, scan: [text, ...seg.argv].join(' ') },
      );
      if (text === null) notes.push({ key: DANGEROUS.reboundName });
    }
    const key = raw.includes('/') ? normalizePath(raw) : raw;
    const program = raw.includes('/') ? this.copies.get(key) : (this.hashed.get(raw) ?? this.copies.get(raw));
    const bound = raw.includes('/') ? this.copies.has(key) : this.hashed.has(raw) || this.copies.has(raw);
    if (bound) {
      notes.push({ key: DANGEROUS.reboundName });
      if (program === null || program === undefined) notes.push({ key: DANGEROUS.unresolvedCommand });
      else if (verbName(program) !== seg.verb) out = replaceVerb(seg, program);
    }
    if (raw.includes('/') && this.written.has(key)) this.noteWritten(key, notes);
    if (SCRIPT_RUNNERS.has(seg.family)) {
      const shell = seg.family === 'shell' || seg.family === 'source' || seg.family === '.';
      const script = operands(seg.argv).find((arg) => arg !== '-');
      if (script !== undefined && this.written.has(normalizePath(script)))
        this.noteWritten(normalizePath(script), notes, shell);
      // `sh < file` (or a FIFO) written earlier in the command.
      for (const redirect of seg.redirects) {
        const target = redirect.target;
        if (redirect.op !== '<' || (redirect.fd !== undefined && redirect.fd !== 0) || target === undefined)
          continue;
        if (this.written.has(normalizePath(target.text)))
          this.noteWritten(normalizePath(target.text), notes, shell);
      }
    }
    if (seg.family === 'make') {
      const file = makefileOf(seg.argv);
      const names = file === undefined ? ['Makefile', 'makefile', 'GNUmakefile'] : [normalizePath(file)];
      for (const name of names) if (this.written.has(name)) this.noteWritten(name, notes, false);
    }
    return out;
  }

  private noteWritten(path: string, notes: SegmentNote[], shell = true): void {
    const content = this.written.get(path);
    notes.push(
      shell && content !== null && content !== undefined
        ? { key: DANGEROUS.writtenThenRun, scan: content }
        : { key: DANGEROUS.writtenThenRun },
    );
  }

  // --- recording what a command binds --------------------------------------------------------

  private record(seg: Segment, inFunction: boolean): void {
    if (seg.verb === '' && seg.argv.length === 0) {
      for (const word of seg.assignmentWords) this.assign(word, inFunction);
    } else if (seg.verb === '') {
      const [keyword, name] = seg.argl;
      if ((keyword === 'for' || keyword === 'select') && name !== undefined) this.forget(name);
    }
    this.recordBuiltin(seg, inFunction);
    this.recordWrites(seg);
  }

  private setVar(name: string, items: readonly string[] | null, inFunction: boolean): void {
    if (name === 'IFS') this.ifsChanged = true;
    if (!this.vars.has(name) && this.vars.size >= MAX_NAMES) return;
    const previous = this.vars.get(name);
    const conflict =
      previous !== undefined &&
      (previous === null ||
        items === null ||
        previous.length !== items.length ||
        previous.some((v, i) => v !== items[i]));
    this.vars.set(name, inFunction || conflict ? null : items);
  }

  private forget(name: string): void {
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) this.setVar(name, null, false);
  }

  private assign(word: ShellWord, inFunction: boolean): void {
    const text = word.text;
    const eq = text.indexOf('=');
    if (eq <= 0) return;
    const append = text[eq - 1] === '+';
    const name = text.slice(0, append ? eq - 1 : eq);
    if (word.elements !== undefined) {
      const items = word.elements.map((element) => element.text);
      const known =
        !append &&
        !word.elements.some((element) => element.expanded || element.dynamic) &&
        items.length <= MAX_ITEMS;
      this.setVar(name, known ? items : null, inFunction);
      return;
    }
    const value = text.slice(eq + 1);
    const known = !append && !word.expanded && value.length <= MAX_VALUE_LENGTH;
    this.setVar(name, known ? [value] : null, inFunction);
  }

  private recordBuiltin(seg: Segment, inFunction: boolean): void {
    const { verb, argv, args } = seg;
    switch (verb) {
      case 'export':
      case 'declare':
      case 'typeset':
      case 'local':
      case 'readonly': {
        const flags = argv.filter((arg) => /^[-+][a-zA-Z]+$/.test(arg)).join('');
        const opaque = /[naAi]/.test(flags);
        for (const word of args) {
          if (/^[-+]/.test(word.text)) continue;
          if (opaque) this.forget(word.text.split(/\+?=/)[0] ?? '');
          else if (isAssignment(word.text)) this.assign(word, inFunction);
        }
        return;
      }
      case 'read':
      case 'mapfile':
      case 'readarray':
      case 'getopts':
      case 'let':
        for (const name of boundNames(verb, argv)) this.forget(name);
        return;
      case 'printf':
        this.printfVar(seg, inFunction);
        return;
      case 'unset':
        if (!argv.includes('-f'))
          for (const name of operands(argv)) this.vars.set(name, inFunction ? null : ['']);
        return;
      case 'eval':
      case 'source':
      case '.':
        this.vars.clear();
        this.positional = null;
        return;
      case 'set':
        this.setPositional(seg);
        return;
      case 'shift': {
        const n = Number(argv[0] ?? '1');
        if (this.positional !== null) {
          if (Number.isInteger(n) && n >= 0) this.positional.splice(1, n);
          else this.positional = null;
        }
        return;
      }
      case 'alias':
        for (const word of args) {
          const eq = word.text.indexOf('=');
          if (eq > 0 && this.aliases.size < MAX_NAMES)
            this.aliases.set(word.text.slice(0, eq), word.expanded ? null : word.text.slice(eq + 1));
        }
        return;
      case 'unalias':
        for (const name of operands(argv)) this.aliases.delete(name);
        return;
      case 'hash': {
        const p = argv.indexOf('-p');
        const path = args[p + 1];
        const name = argv[p + 2];
        if (p >= 0 && path !== undefined && name !== undefined && this.hashed.size < MAX_NAMES)
          this.hashed.set(name, path.expanded ? null : path.text);
        return;
      }
      case 'cp':
      case 'ln':
      case 'install':
      case 'mv':
        this.recordCopy(seg);
        return;
      default:
        return;
    }
  }

  private printfVar(seg: Segment, inFunction: boolean): void {
    const at = seg.argv.indexOf('-v');
    const name = seg.argv[at + 1];
    if (at < 0 || name === undefined) return;
    const rest = seg.args.slice(at + 2).filter((word) => word.text !== '--');
    const format = rest[0];
    let value: string | undefined;
    if (format !== undefined && !rest.some((word) => word.expanded)) {
      if (!format.text.includes('%') && rest.length === 1) value = decodeBackslashes(format.text);
      else if (format.text === '%s' && rest.length === 2) value = rest[1]?.text;
    }
    this.setVar(name, value === undefined ? null : [value], inFunction);
  }

  private setPositional(seg: Segment): void {
    const { argv, args } = seg;
    let i = 0;
    let explicit = false;
    while (i < argv.length) {
      const arg = argv[i] as string;
      if (arg === '--') {
        explicit = true;
        i += 1;
        break;
      }
      if (arg === '-o' || arg === '+o') i += 2;
      else if (/^[-+][a-zA-Z]+$/.test(arg)) i += 1;
      else break;
    }
    if (!explicit && i >= argv.length) return;
    const rest = args.slice(i);
    const pos0 = this.positional?.[0] ?? 'bash';
    this.positional = rest.some((word) => word.expanded || word.dynamic)
      ? null
      : [pos0, ...rest.map((w) => w.text)];
  }

  private recordCopy(seg: Segment): void {
    const files = copyOperands(seg.argv);
    if (files === undefined || files.length !== 2) return;
    const [src, dest] = files as [string, string];
    if (dest.endsWith('/')) return;
    const srcWord = seg.args.find((word) => word.text === src);
    const program = srcWord?.expanded === true ? null : src;
    const key = normalizePath(dest);
    if (this.copies.size >= MAX_NAMES) return;
    this.copies.set(key, program);
    if (PATH_DIRS.test(dest)) this.copies.set(baseName(dest), program);
    this.written.set(key, null);
  }

  private recordWrites(seg: Segment): void {
    if (this.written.size >= MAX_NAMES) return;
    for (const redirect of seg.redirects) {
      if (!WRITE_OPS.has(redirect.op) || redirect.target === undefined || redirect.target.expanded) continue;
      if (redirect.fd !== undefined && redirect.fd !== 1) continue;
      const content = redirect.op === '>' || redirect.op === '>|' ? (literalOutput(seg)?.[0] ?? null) : null;
      this.written.set(normalizePath(redirect.target.text), content);
    }
    if (seg.verb === 'tee' || seg.verb === 'mkfifo')
      for (const file of operands(seg.argv)) this.written.set(normalizePath(file), null);
    if (seg.verb === 'dd') {
      for (const arg of seg.argv)
        if (arg.startsWith('of=')) this.written.set(normalizePath(arg.slice(3)), null);
    }
  }
}

/** Peels every command of a list in order, resolving names as the list binds them. */
export function bindList(list: ShellList, positional: Positional): BoundList {
  const binder = new ListBinder(positional);
  const segments: Segment[] = [];
  const notes: (readonly SegmentNote[] | undefined)[] = [];
  for (const command of list.commands) {
    const bound = binder.bind(command);
    segments.push(bound.seg);
    notes.push(bound.notes);
  }
  return { segments, notes };
}
