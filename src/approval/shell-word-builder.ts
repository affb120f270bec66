import type { ShellSubstitution, ShellWord, WordPart } from './shell-types.js';

/** At most this many words come out of one brace expansion (`{a,b,c}`). */
const MAX_BRACE_ITEMS = 32;

/**
 * Accumulates one shell word while the scanner reads it, tracking how each piece was written
 * (quoted, escaped, expanded) and the first unquoted brace group for `{a,b}` expansion.
 */
export class ShellWordBuilder {
  private text = '';
  private quoted = false;
  private dynamic = false;
  private expanded = false;
  private splittable = false;
  private globAt = -1;
  private slashAt = -1;
  private readonly parts: WordPart[] = [];
  private foldable = true;
  private pieces = 0;
  private expansions = 0;
  private baseExpansions = 0;
  private baseLiteral = false;
  private soleName: string | undefined;
  private soleUnquoted = false;
  private readonly subs: ShellSubstitution[] = [];
  private braceOpen = -1;
  private braceClose = -1;
  private braceDepth = 0;
  private braceCommas: number[] = [];
  private braceBroken = false;

  /** True when nothing at all was read (not even an empty quoted string). */
  get empty(): boolean {
    return this.pieces === 0 && !this.quoted;
  }

  /** Unquoted source text: glob characters make the word dynamic, braces may expand. */
  unquoted(chunk: string): void {
    if (chunk === '') return;
    this.pieces += 1;
    for (let i = 0; i < chunk.length; i += 1) {
      const c = chunk.charCodeAt(i);
      const at = this.text.length + i;
      // `(` reaches an unquoted chunk only inside an extglob group (`+(r)m`): a glob too.
      if (c === 0x2a || c === 0x3f || c === 0x28 || (c === 0x5b && chunk.indexOf(']', i + 2) > i)) {
        // `[` starts a bracket expression only when a `]` closes it (`[` alone is the test command).
        this.dynamic = true;
        this.globAt = at;
        this.foldable = false;
      } else if (c === 0x7b) this.braceOpenAt(at);
      else if (c === 0x7d) this.braceCloseAt(at);
      else if (c === 0x2c && this.braceDepth === 1 && this.braceClose < 0) this.braceCommas.push(at);
    }
    this.appendLiteral(chunk);
  }

  /** Quoted or escaped text: taken literally. */
  literal(chunk: string): void {
    this.quoted = true;
    if (chunk === '') return;
    this.pieces += 1;
    this.appendLiteral(chunk);
  }

  /** Marks the word as quoted even if the quoted part was empty (`''` is still an argument). */
  markQuoted(): void {
    this.quoted = true;
  }

  /**
   * An expansion (`$x`, `${x}`, `$(…)`, a backtick substitution): `rendered` is what the word
   * shows in its place (usually the source text), `name` the variable name when it is one.
   */
  expansion(rendered: string, quoted: boolean, name?: string, sub?: ShellSubstitution): void {
    this.pieces += 1;
    this.expansions += 1;
    this.baseExpansions += 1;
    if (sub !== undefined) this.subs.push(sub);
    if (name === undefined || sub !== undefined) this.foldable = false;
    else this.parts.push({ name, quoted });
    this.expanded = true;
    if (quoted) this.quoted = true;
    else {
      this.dynamic = true;
      this.splittable = true;
    }
    if (this.pieces === 1 && name !== undefined && this.text === '') {
      this.soleName = name;
      this.soleUnquoted = !quoted;
    } else {
      this.soleName = undefined;
    }
    this.text += rendered;
  }

  /** Substitutions found somewhere the word does not show (e.g. inside `${x:-$(cmd)}`). */
  addSubs(subs: readonly ShellSubstitution[]): void {
    if (subs.length > 0) this.foldable = false;
    for (const sub of subs) this.subs.push(sub);
  }

  /** The finished word(s): brace groups like `{rm,-rf,/}` become several words. */
  finish(): ShellWord[] {
    const mixedName = this.baseExpansions >= 2 || (this.baseExpansions >= 1 && this.baseLiteral);
    const sole = this.expansions === 1 && this.soleName !== undefined && this.pieces === 1;
    const baseGlob = this.globAt > this.slashAt;
    const base: ShellWord = {
      text: this.text,
      quoted: this.quoted,
      dynamic: this.dynamic,
      mixedName,
      expansionName: sole ? this.soleName : undefined,
      expansionUnquoted: sole && this.soleUnquoted,
      subs: this.subs,
      expanded: this.expanded,
      splittable: this.splittable,
      baseDynamic: this.baseExpansions > 0 || baseGlob,
      baseGlob,
      ...(this.foldable && this.expansions > 0 && !sole ? { parts: this.parts } : {}),
    };
    if (this.braceBroken || this.braceOpen < 0 || this.braceClose < 0 || this.braceCommas.length === 0) {
      return [base];
    }
    const prefix = this.text.slice(0, this.braceOpen);
    const suffix = this.text.slice(this.braceClose + 1);
    const cuts = [this.braceOpen, ...this.braceCommas, this.braceClose];
    const words: ShellWord[] = [];
    for (let i = 0; i + 1 < cuts.length && words.length < MAX_BRACE_ITEMS; i += 1) {
      const item = this.text.slice((cuts[i] as number) + 1, cuts[i + 1] as number);
      words.push({ ...base, text: prefix + item + suffix, expansionName: undefined, parts: undefined });
    }
    return words;
  }

  private appendLiteral(chunk: string): void {
    if (chunk !== '') this.parts.push({ text: chunk });
    const slash = chunk.lastIndexOf('/');
    if (slash >= 0) {
      this.slashAt = this.text.length + slash;
      this.baseExpansions = 0;
      this.baseLiteral = slash < chunk.length - 1;
    } else if (chunk !== '') {
      this.baseLiteral = true;
    }
    this.text += chunk;
  }

  private braceOpenAt(at: number): void {
    if (this.braceOpen < 0) this.braceOpen = at;
    else if (this.braceClose < 0) this.braceBroken = true;
    this.braceDepth += 1;
  }

  private braceCloseAt(at: number): void {
    if (this.braceDepth === 0) return;
    this.braceDepth -= 1;
    if (this.braceDepth === 0 && this.braceClose < 0) this.braceClose = at;
  }
}

/** A word whose text is known exactly (a resolved constant, a program name the detector chose). */
export function staticWord(text: string, quoted = false): ShellWord {
  return {
    text,
    quoted,
    dynamic: false,
    mixedName: false,
    expansionName: undefined,
    expansionUnquoted: false,
    subs: [],
    expanded: false,
    splittable: false,
    baseDynamic: false,
    baseGlob: false,
  };
}

/**
 * Stands for any number of words not known before the command runs (input lines `xargs`
 * appends, a path `find -exec` substitutes for `{}`). `text` is what rules see.
 */
export function opaqueWord(text: string): ShellWord {
  return {
    text,
    quoted: false,
    dynamic: true,
    mixedName: false,
    expansionName: undefined,
    expansionUnquoted: false,
    subs: [],
    expanded: true,
    splittable: true,
    baseDynamic: true,
    baseGlob: false,
  };
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/**
 * Decodes the body of a bash `$'…'` string (`\x72\x6d` → `rm`). Returns the decoded text and
 * the index just after the closing quote, or `end: -1` when the quote is never closed.
 */
export function decodeAnsiC(src: string, start: number): { text: string; end: number } {
  let out = '';
  let i = start;
  while (i < src.length) {
    const c = src[i] as string;
    if (c === "'") return { text: out, end: i + 1 };
    if (c !== '\\' || i + 1 >= src.length) {
      out += c;
      i += 1;
      continue;
    }
    const e = src[i + 1] as string;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      i += 2;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const max = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const digits = readDigits(src, i + 2, max, 16);
      out += digits.length > 0 ? codePoint(Number.parseInt(digits, 16)) : `\\${e}`;
      i += 2 + digits.length;
    } else if (e >= '0' && e <= '7') {
      const digits = readDigits(src, i + 1, 3, 8);
      out += codePoint(Number.parseInt(digits, 8));
      i += 1 + digits.length;
    } else if (e === 'c' && i + 2 < src.length) {
      out += String.fromCharCode((src.charCodeAt(i + 2) & 0x1f) >>> 0);
      i += 3;
    } else {
      out += `\\${e}`;
      i += 2;
    }
  }
  return { text: out, end: -1 };
}

function readDigits(src: string, from: number, max: number, radix: 8 | 16): string {
  let j = from;
  while (j < src.length && j - from < max && isDigitOf(src.charCodeAt(j), radix)) j += 1;
  return src.slice(from, j);
}

function isDigitOf(c: number, radix: 8 | 16): boolean {
  if (radix === 8) return c >= 0x30 && c <= 0x37;
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function codePoint(value: number): string {
  return value >= 0 && value <= 0x10ffff ? String.fromCodePoint(value) : '';
}
