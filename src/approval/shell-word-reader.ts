import { evaluateArithmetic } from './shell-arithmetic.js';
import { arithmeticEnd, braceName, extglobEnd } from './shell-spans.js';
import type { ShellCommand, ShellPipeline, ShellWord } from './shell-types.js';
import { decodeAnsiC, ShellWordBuilder } from './shell-word-builder.js';

/** Deepest nesting of groups and substitutions the scanner follows before giving up. */
export const MAX_SHELL_NESTING = 32;
/**
 * Commands, groups and substitutions one scan reads at most (across nested bodies). Keeps the
 * worst case (tens of thousands of `a;` or backticks) to a few milliseconds; past it the scan
 * stops with `overflow`, which detection reports as a parser-limit finding.
 */
export const MAX_SHELL_UNITS = 2_000;

/** Work counter shared by a scanner and every scanner it starts for nested text. */
export interface ShellWork {
  units: number;
}

export type Closer = 'eof' | ')' | '}';

export interface MutableList {
  commands: ShellCommand[];
  pipelines: ShellPipeline[];
}

/**
 * Word-level half of the shell scanner: quotes, escapes, `$'…'`, parameter expansions,
 * command, backtick and process substitutions. The structural half (lists, pipelines,
 * redirections, heredocs) is `ShellParser` in shell-scan.ts.
 */
export abstract class ShellWordReader {
  malformed = false;
  overflow = false;
  protected pos = 0;
  protected depth: number;
  protected readonly len: number;

  constructor(
    protected readonly src: string,
    nesting: number,
    protected readonly work: ShellWork = { units: 0 },
  ) {
    this.len = src.length;
    this.depth = nesting;
  }

  /** Charges one unit of work; false (and overflow) once the scan's budget is spent. */
  protected charge(): boolean {
    this.work.units += 1;
    if (this.work.units > MAX_SHELL_UNITS) {
      this.overflow = true;
      this.pos = this.len;
      return false;
    }
    return true;
  }

  /** Parses commands until `closer` (consumed) or the end of the text. */
  abstract parseListInto(list: MutableList, closer: Closer): void;

  /** A scanner over other text: backtick bodies, heredoc bodies, `${…}` contents. */
  protected abstract child(source: string, nesting: number): ShellWordReader;

  protected readProcessSubstitution(): ShellWord {
    const kind = this.src[this.pos] === '<' ? 'process-in' : 'process-out';
    const start = this.pos;
    this.pos += 2;
    const list: MutableList = { commands: [], pipelines: [] };
    if (this.enter()) {
      this.parseListInto(list, ')');
      this.leave();
    }
    const builder = new ShellWordBuilder();
    builder.expansion(this.src.slice(start, this.pos), false, undefined, { kind, list });
    return builder.finish()[0] as ShellWord;
  }

  /** One word; `$IFS` splits it and brace groups expand, so zero or more words come back. */
  protected readWord(): ShellWord[] {
    const out: ShellWord[] = [];
    let builder = new ShellWordBuilder();
    while (this.pos < this.len && !this.overflow) {
      const c = this.src[this.pos] as string;
      if (isWordBreak(c)) break;
      if (c === '\\') {
        const next = this.src[this.pos + 1];
        if (next === '\n') this.pos += 2;
        else if (next === undefined) {
          builder.literal('\\');
          this.pos += 1;
        } else {
          builder.literal(next);
          this.pos += 2;
        }
      } else if (c === "'") {
        const close = this.src.indexOf("'", this.pos + 1);
        if (close < 0) {
          this.malformed = true;
          builder.literal(this.src.slice(this.pos + 1));
          this.pos = this.len;
        } else {
          builder.literal(this.src.slice(this.pos + 1, close));
          this.pos = close + 1;
        }
      } else if (c === '"') {
        this.pos += 1;
        builder.markQuoted();
        this.readDoubleQuoted(builder, true);
      } else if (c === '`') {
        this.readBacktick(builder, false);
      } else if (c === '$') {
        if (this.readDollar(builder, false) === 'split') {
          if (!builder.empty) out.push(...builder.finish());
          builder = new ShellWordBuilder();
        }
      } else {
        let j = this.pos + 1;
        while (j < this.len && isPlain(this.src[j] as string)) j += 1;
        // An extglob pattern (`!(x)`, `+(a|b)`, `@(…)`): the parenthesised part belongs to the word.
        if (this.src[j] === '(' && '?*+@!'.includes(this.src[j - 1] as string)) j = extglobEnd(this.src, j);
        builder.unquoted(this.src.slice(this.pos, j));
        this.pos = j;
      }
    }
    if (!builder.empty) out.push(...builder.finish());
    return out;
  }

  /**
   * Double-quoted text (or an unquoted heredoc body when `terminated` is false): only `$`,
   * backticks and a few backslash escapes are special.
   */
  readDoubleQuoted(builder: ShellWordBuilder, terminated: boolean): void {
    while (this.pos < this.len && !this.overflow) {
      const c = this.src[this.pos] as string;
      if (c === '"' && terminated) {
        this.pos += 1;
        return;
      }
      if (c === '\\') {
        const next = this.src[this.pos + 1];
        if (next === '\n') this.pos += 2;
        else if (next === '$' || next === '`' || next === '\\' || (next === '"' && terminated)) {
          builder.literal(next);
          this.pos += 2;
        } else {
          builder.literal('\\');
          this.pos += 1;
        }
      } else if (c === '$') {
        this.readDollar(builder, true);
      } else if (c === '`') {
        this.readBacktick(builder, true);
      } else {
        let j = this.pos + 1;
        while (j < this.len) {
          const d = this.src[j];
          if (d === '\\' || d === '$' || d === '`' || (d === '"' && terminated)) break;
          j += 1;
        }
        builder.literal(this.src.slice(this.pos, j));
        this.pos = j;
      }
    }
    if (terminated) this.malformed = true;
  }

  /** Handles a `$` at the current position. Returns 'split' for an unquoted `$IFS`. */
  private readDollar(builder: ShellWordBuilder, quoted: boolean): 'split' | undefined {
    const start = this.pos;
    const next = this.src[this.pos + 1];
    if (next === '(' && this.src[this.pos + 2] === '(' && this.readArithmetic(builder, quoted, 3)) {
      return undefined;
    }
    if (next === '[' && this.readArithmetic(builder, quoted, 2)) return undefined;
    if (next === '(') {
      this.pos += 2;
      const list: MutableList = { commands: [], pipelines: [] };
      if (this.enter()) {
        this.parseListInto(list, ')');
        this.leave();
      }
      builder.expansion(this.src.slice(start, this.pos), quoted, undefined, { kind: 'command', list });
      return undefined;
    }
    if (next === '{') return this.readBraceParameter(builder, quoted);
    if (next === "'" && !quoted) {
      const decoded = decodeAnsiC(this.src, this.pos + 2);
      if (decoded.end < 0) {
        this.malformed = true;
        this.pos = this.len;
      } else {
        this.pos = decoded.end;
      }
      builder.literal(decoded.text);
      return undefined;
    }
    if (next === '"' && !quoted) {
      this.pos += 2;
      builder.markQuoted();
      this.readDoubleQuoted(builder, true);
      return undefined;
    }
    if (next !== undefined && isNameStart(next)) {
      let j = this.pos + 2;
      while (j < this.len && isNameChar(this.src[j] as string)) j += 1;
      const name = this.src.slice(this.pos + 1, j);
      this.pos = j;
      if (name === 'IFS') {
        if (!quoted) return 'split';
        builder.literal(' ');
        return undefined;
      }
      builder.expansion(`$${name}`, quoted, name);
      return undefined;
    }
    if (next !== undefined && ((next >= '1' && next <= '9') || next === '@' || next === '*')) {
      // Shown empty (as in a fresh `bash -c`); named so the detector can resolve or flag them.
      this.pos += 2;
      builder.expansion('', quoted, next);
      return undefined;
    }
    if (next !== undefined && '0#?$!-'.includes(next)) {
      this.pos += 2;
      builder.expansion(`$${next}`, quoted, next === '0' || next === '#' ? next : undefined);
      return undefined;
    }
    this.pos += 1;
    if (quoted) builder.literal('$');
    else builder.unquoted('$');
    return undefined;
  }

  /** `${…}`: IFS splits, `${x:-default}` shows its default, anything else keeps its text. */
  private readBraceParameter(builder: ShellWordBuilder, quoted: boolean): 'split' | undefined {
    const start = this.pos;
    let j = this.pos + 2;
    let depth = 1;
    while (j < this.len) {
      const c = this.src[j];
      if (c === '\\') j += 1;
      else if (c === '{') depth += 1;
      else if (c === '}') {
        depth -= 1;
        if (depth === 0) break;
      }
      j += 1;
    }
    if (j >= this.len) {
      this.malformed = true;
      this.pos = this.len;
      builder.expansion(this.src.slice(start), quoted);
      return undefined;
    }
    const content = this.src.slice(start + 2, j);
    this.pos = j + 1;
    let n = 0;
    while (n < content.length && isNameChar(content[n] as string)) n += 1;
    const name = content.slice(0, n);
    if (name === 'IFS') {
      if (!quoted) return 'split';
      builder.literal(' ');
      return undefined;
    }
    this.readNestedSubstitutions(builder, content);
    const rest = content.slice(n);
    const fallback = /^:?[-=]/.exec(rest);
    if (name !== '' && fallback !== null) {
      builder.expansion(stripQuotes(rest.slice(fallback[0].length)), quoted);
      return undefined;
    }
    if (/^(?:[1-9][0-9]*|[@*])$/.test(content)) {
      builder.expansion('', quoted, content);
      return undefined;
    }
    builder.expansion(`\${${content}}`, quoted, braceName(content, name, n));
    return undefined;
  }

  /** Substitutions inside `${…}` or `$((…))` text: they run, though the word does not show them. */
  private readNestedSubstitutions(builder: ShellWordBuilder, content: string): void {
    if (!content.includes('$') && !content.includes('`')) return;
    const inner = this.child(content, this.depth + 1);
    const scratch = new ShellWordBuilder();
    inner.readDoubleQuoted(scratch, false);
    builder.addSubs(scratch.finish()[0]?.subs ?? []);
    if (inner.malformed) this.malformed = true;
    if (inner.overflow) this.overflow = true;
  }

  /**
   * `$((expr))` (`open` = 3) or `$[expr]` (`open` = 2). A constant expression becomes its value
   * (`$((-1))` → `-1`); anything else stays an expansion whose substitutions are still read.
   * False (nothing consumed) when `$((` turns out to open a command substitution.
   */
  private readArithmetic(builder: ShellWordBuilder, quoted: boolean, open: 2 | 3): boolean {
    const close = open === 3 ? arithmeticEnd(this.src, this.pos + 3) : this.src.indexOf(']', this.pos + 2);
    if (close < 0) return false;
    const start = this.pos;
    const content = this.src.slice(this.pos + open, close);
    this.pos = close + (open === 3 ? 2 : 1);
    const value = evaluateArithmetic(content);
    if (value !== undefined) {
      if (quoted) builder.literal(value);
      else builder.unquoted(value);
      return true;
    }
    this.readNestedSubstitutions(builder, content);
    builder.expansion(this.src.slice(start, this.pos), quoted);
    return true;
  }

  private readBacktick(builder: ShellWordBuilder, quoted: boolean): void {
    const start = this.pos;
    let inner = '';
    let j = this.pos + 1;
    let closed = false;
    while (j < this.len) {
      const c = this.src[j] as string;
      if (c === '\\' && j + 1 < this.len) {
        const next = this.src[j + 1] as string;
        inner += next === '`' || next === '$' || next === '\\' ? next : `\\${next}`;
        j += 2;
      } else if (c === '`') {
        closed = true;
        break;
      } else {
        inner += c;
        j += 1;
      }
    }
    if (!closed) this.malformed = true;
    this.pos = closed ? j + 1 : this.len;
    const list: MutableList = { commands: [], pipelines: [] };
    if (this.enter()) {
      const reader = this.child(inner, this.depth);
      reader.parseListInto(list, 'eof');
      if (reader.malformed) this.malformed = true;
      if (reader.overflow) this.overflow = true;
      this.leave();
    }
    builder.expansion(this.src.slice(start, this.pos), quoted, undefined, { kind: 'backtick', list });
  }

  protected enter(): boolean {
    if (!this.charge()) return false;
    this.depth += 1;
    if (this.depth > MAX_SHELL_NESTING) {
      this.overflow = true;
      this.pos = this.len;
      return false;
    }
    return true;
  }

  protected leave(): void {
    this.depth -= 1;
  }

  protected skipBlanks(): void {
    while (this.pos < this.len) {
      const c = this.src[this.pos];
      if (c === ' ' || c === '\t' || c === '\r') this.pos += 1;
      else if (c === '\\' && this.src[this.pos + 1] === '\n') this.pos += 2;
      else return;
    }
  }

  protected isWordEnd(index: number): boolean {
    const c = this.src[index];
    return c === undefined || isWordBreak(c);
  }
}

export function isWordBreak(c: string): boolean {
  return (
    c === ' ' ||
    c === '\t' ||
    c === '\r' ||
    c === '\n' ||
    c === ';' ||
    c === '&' ||
    c === '|' ||
    c === '<' ||
    c === '>' ||
    c === '(' ||
    c === ')'
  );
}

function isPlain(c: string): boolean {
  return !isWordBreak(c) && c !== '\\' && c !== "'" && c !== '"' && c !== '`' && c !== '$';
}

function isNameStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
}

function isNameChar(c: string): boolean {
  return isNameStart(c) || (c >= '0' && c <= '9');
}

function stripQuotes(text: string): string {
  return text.replace(/["']/g, '');
}
