/**
 * One glob matcher for the whole gateway, in two dialects:
 *
 * - commands (the default; approval allowlists and deny rules): fnmatch — `*` any run of
 *   characters including `/`, `?` one character, `[abc]` `[a-z]` `[!abc]` `[^abc]`; `{`, `}` and
 *   `\` are plain characters.
 * - paths (`{ paths: true, braces: true, escapes: true }`; the file tools' `search_files` globs,
 *   as ripgrep reads them): `*`, `?` and negated classes stay within one `/`-separated segment,
 *   `**` as a whole segment crosses any number of them (`**\/x`, `a/**`), `{a,b}` alternatives
 *   (nested), `\x` a literal `x`.
 *
 * Whole-string matches over code points. A `[` without its `]` is a plain character; an
 * unclosed `{` throws a `GlobSyntaxError`. The pattern is compiled to a small automaton and run
 * over the text once (state sets, no backtracking), so a hostile pattern or a 100 KB subject
 * costs at most O(pattern × text) steps, never exponential time.
 */

export interface GlobDialect {
  /** `*`, `?` and negated classes never match `/`; `**` as a segment matches any depth. */
  readonly paths?: boolean;
  /** `{a,b}` alternatives. */
  readonly braces?: boolean;
  /** `\x` matches `x` literally. */
  readonly escapes?: boolean;
  /** Folds both sides to lower case. */
  readonly caseInsensitive?: boolean;
}

export class GlobSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GlobSyntaxError';
  }
}

/** Tests one code point. */
type CharTest = (code: number) => boolean;

/** One instruction of the automaton: consume a character, fork, jump, or accept. */
type Op =
  | { readonly op: 'lit'; readonly code: number }
  | { readonly op: 'char'; readonly test: CharTest }
  | { readonly op: 'split'; readonly a: number; b: number }
  | { readonly op: 'jump'; to: number }
  | { readonly op: 'match' };

const ANY: CharTest = () => true;
const SLASH = 0x2f;
const NOT_SLASH: CharTest = (code) => code !== SLASH;

const codeOf = (char: string): number => char.codePointAt(0) as number;

/** `[…]` starting at `start`: the test and the index after `]`, or undefined when unclosed. */
function parseClass(
  chars: readonly string[],
  start: number,
  paths: boolean,
): { test: CharTest; end: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (chars[i] === '!' || chars[i] === '^') {
    negate = true;
    i += 1;
  }
  const ranges: [number, number][] = [];
  let first = true;
  while (i < chars.length) {
    const char = chars[i] as string;
    if (char === ']' && !first) {
      const inside = (c: number) => ranges.some(([low, high]) => c >= low && c <= high);
      const test: CharTest = negate ? (c) => !inside(c) && !(paths && c === SLASH) : inside;
      return { test, end: i + 1 };
    }
    first = false;
    const high = chars[i + 2];
    if (chars[i + 1] === '-' && high !== undefined && high !== ']') {
      ranges.push([codeOf(char), codeOf(high)]);
      i += 3;
    } else {
      ranges.push([codeOf(char), codeOf(char)]);
      i += 1;
    }
  }
  return undefined;
}

class Compiler {
  readonly ops: Op[] = [];
  readonly #chars: readonly string[];
  readonly #dialect: GlobDialect;
  #i = 0;

  constructor(chars: readonly string[], dialect: GlobDialect) {
    this.#chars = chars;
    this.#dialect = dialect;
  }

  compile(): Op[] {
    this.#sequence(0);
    if (this.#i < this.#chars.length) throw new GlobSyntaxError('unexpected end of alternatives');
    this.ops.push({ op: 'match' });
    return this.ops;
  }

  #emitChar(test: CharTest): void {
    this.ops.push({ op: 'char', test });
  }

  #emitLiteral(char: string): void {
    this.ops.push({ op: 'lit', code: codeOf(char) });
  }

  /** `test*`: any number of characters passing `test`. */
  #emitRepeat(test: CharTest): void {
    const split = this.ops.length;
    const fork: Op = { op: 'split', a: split + 1, b: -1 };
    this.ops.push(fork);
    this.#emitChar(test);
    this.ops.push({ op: 'jump', to: split });
    fork.b = this.ops.length;
  }

  /** Up to a `,` or `}` at this depth (depth 0: to the end). */
  #sequence(depth: number): void {
    const chars = this.#chars;
    const { paths = false, braces = false, escapes = false } = this.#dialect;
    while (this.#i < chars.length) {
      const char = chars[this.#i] as string;
      if (braces && depth > 0 && (char === ',' || char === '}')) return;
      if (char === '*') {
        const segmentStart = this.#i === 0 || chars[this.#i - 1] === '/';
        if (paths && chars[this.#i + 1] === '*' && segmentStart) {
          const after = chars[this.#i + 2];
          if (after === '/') {
            // `**/`: nothing, or any run of whole segments.
            const fork: Op = { op: 'split', a: this.ops.length + 1, b: -1 };
            this.ops.push(fork);
            this.#emitRepeat(ANY);
            this.#emitLiteral('/');
            fork.b = this.ops.length;
            this.#i += 3;
            continue;
          }
          if (after === undefined) {
            this.#emitRepeat(ANY);
            this.#i += 2;
            continue;
          }
        }
        this.#emitRepeat(paths ? NOT_SLASH : ANY);
        this.#i += 1;
      } else if (char === '?') {
        this.#emitChar(paths ? NOT_SLASH : ANY);
        this.#i += 1;
      } else if (char === '[') {
        const parsed = parseClass(chars, this.#i, paths);
        if (parsed === undefined) {
          this.#emitLiteral('[');
          this.#i += 1;
        } else {
          this.#emitChar(parsed.test);
          this.#i = parsed.end;
        }
      } else if (braces && char === '{') {
        this.#alternatives(depth + 1);
      } else if (escapes && char === '\\' && this.#i + 1 < chars.length) {
        this.#emitLiteral(chars[this.#i + 1] as string);
        this.#i += 2;
      } else {
        this.#emitLiteral(char);
        this.#i += 1;
      }
    }
    if (depth > 0) throw new GlobSyntaxError("a '{' is never closed");
  }

  /** `{a,b,…}` at the cursor: one fork per alternative, each jumping to the end. */
  #alternatives(depth: number): void {
    this.#i += 1; // `{`
    const jumps: Op[] = [];
    for (;;) {
      const fork: Op = { op: 'split', a: this.ops.length + 1, b: -1 };
      this.ops.push(fork);
      this.#sequence(depth);
      const jump: Op = { op: 'jump', to: -1 };
      this.ops.push(jump);
      jumps.push(jump);
      fork.b = this.ops.length;
      const closer = this.#chars[this.#i];
      this.#i += 1;
      if (closer === '}') break;
    }
    // The last fork's other branch leads nowhere: a dead state that consumes nothing.
    this.#emitChar(() => false);
    const end = this.ops.length;
    for (const jump of jumps) (jump as { to: number }).to = end;
  }
}

/**
 * The automaton as a predicate: the set of live states after each character (a Pike VM without
 * captures). The state lists are allocated once per compiled pattern and stamped per step, so a
 * match allocates nothing (matching is synchronous, so the buffers are never shared).
 */
function matcher(ops: readonly Op[]): (text: string) => boolean {
  const size = ops.length;
  // One buffer: two state lists, and a stack where each state is pushed at most once per edge
  // into it (two per fork).
  const buffer = new Int32Array(4 * size + 2);
  let current = buffer.subarray(0, size);
  let next = buffer.subarray(size, 2 * size);
  const stack = buffer.subarray(2 * size);
  const seen = new Uint32Array(size);
  let stamp = 0;

  /** Adds `pc` and every state reachable from it without consuming a character. */
  const add = (pc: number, into: Int32Array, count: number): number => {
    let top = 0;
    stack[top++] = pc;
    let n = count;
    while (top > 0) {
      const at = stack[--top] as number;
      if (seen[at] === stamp) continue;
      seen[at] = stamp;
      const op = ops[at] as Op;
      if (op.op === 'split') {
        stack[top++] = op.b;
        stack[top++] = op.a;
      } else if (op.op === 'jump') {
        stack[top++] = op.to;
      } else {
        into[n++] = at;
      }
    }
    return n;
  };

  return (text) => {
    if (stamp > 0xfff00000) {
      seen.fill(0);
      stamp = 0;
    }
    stamp += 1;
    let count = add(0, current, 0);
    for (let i = 0; i < text.length; ) {
      const code = text.codePointAt(i) as number;
      i += code > 0xffff ? 2 : 1;
      stamp += 1;
      let nextCount = 0;
      for (let k = 0; k < count; k += 1) {
        const pc = current[k] as number;
        const op = ops[pc] as Op;
        if (op.op === 'lit' ? op.code === code : op.op === 'char' && op.test(code)) {
          nextCount = add(pc + 1, next, nextCount);
        }
      }
      if (nextCount === 0) return false;
      [current, next] = [next, current];
      count = nextCount;
    }
    for (let k = 0; k < count; k += 1) if ((ops[current[k] as number] as Op).op === 'match') return true;
    return false;
  };
}

/** The pattern as a predicate (compiled once); throws `GlobSyntaxError` on an unclosed `{`. */
export function compileGlobPattern(pattern: string, dialect: GlobDialect = {}): (text: string) => boolean {
  const fold = dialect.caseInsensitive === true;
  const matches = matcher(
    new Compiler(Array.from(fold ? pattern.toLowerCase() : pattern), dialect).compile(),
  );
  return fold ? (text) => matches(text.toLowerCase()) : matches;
}

/** Whole-string match of `text` against `pattern` (commands dialect unless told otherwise). */
export function globMatch(pattern: string, text: string, dialect: GlobDialect = {}): boolean {
  return compileGlobPattern(pattern, dialect)(text);
}

/** True when the pattern uses any wildcard of the commands dialect; otherwise it matches only itself. */
export function hasGlobSyntax(pattern: string): boolean {
  return /[*?[]/.test(pattern);
}
