import type { ShellParse, ShellRedirect, ShellSubstitution, ShellWord } from './shell-types.js';
import { ShellWordBuilder } from './shell-word-builder.js';
import { type Closer, isWordBreak, type MutableList, ShellWordReader } from './shell-word-reader.js';

export { MAX_SHELL_NESTING } from './shell-word-reader.js';

interface MutableCommand {
  words: ShellWord[];
  redirects: ShellRedirect[];
  background: boolean;
  inFunction?: boolean;
}

/** `NAME=` / `NAME+=` right before `(`: an array assignment. */
const ARRAY_HEAD = /^[A-Za-z_][A-Za-z0-9_]*\+?=$/;

interface MutableRedirect {
  op: string;
  fd: number | undefined;
  target: ShellWord | undefined;
  body: string | undefined;
  bodySubs: ShellSubstitution[];
}

interface PendingHeredoc {
  readonly redirect: MutableRedirect;
  readonly delimiter: string;
  readonly stripTabs: boolean;
  readonly expand: boolean;
}

const REDIRECT_OPS = ['&>>', '&>', '<<<', '<<-', '<<', '<>', '<&', '>>', '>&', '>|', '<', '>'] as const;

/**
 * Reads a shell command line the way bash would split it, in one left-to-right pass: quotes,
 * escapes, `$'…'`, expansions, command and process substitutions, heredocs, groups, pipelines
 * and separators. Never throws; linear in the input (substitutions are parsed in place, only
 * backtick bodies and heredoc bodies are read a second time).
 */
export function parseShell(source: string, nesting = 0): ShellParse {
  const parser = new ShellParser(source, nesting);
  const list: MutableList = { commands: [], pipelines: [] };
  parser.parseListInto(list, 'eof');
  return { list, malformed: parser.malformed, overflow: parser.overflow };
}

class ShellParser extends ShellWordReader {
  private readonly pending: PendingHeredoc[] = [];
  /** Inside this many function bodies (`f() { … }`). */
  private fnDepth = 0;

  protected child(source: string, nesting: number): ShellParser {
    const parser = new ShellParser(source, nesting, this.work);
    parser.fnDepth = this.fnDepth;
    return parser;
  }

  parseListInto(list: MutableList, closer: Closer): void {
    for (;;) {
      if (this.overflow) return;
      this.skipBlanks();
      if (this.pos >= this.len) {
        if (closer !== 'eof') this.malformed = true;
        return;
      }
      const c = this.src[this.pos];
      if (c === '\n') {
        this.pos += 1;
        this.readHeredocs();
      } else if (c === ';' || c === '|' || (c === '&' && this.src[this.pos + 1] !== '>')) {
        this.pos += 1;
      } else if (c === ')') {
        this.pos += 1;
        if (closer === ')') return;
      } else if (c === '#') {
        this.skipComment();
      } else if (closer === '}' && c === '}' && this.isWordEnd(this.pos + 1)) {
        this.pos += 1;
        return;
      } else {
        this.parsePipeline(list, closer);
      }
    }
  }

  private parsePipeline(list: MutableList, closer: Closer): void {
    const stages: number[][] = [];
    for (;;) {
      const start = list.commands.length;
      this.parseStage(list, closer);
      const stage: number[] = [];
      for (let i = start; i < list.commands.length; i += 1) stage.push(i);
      stages.push(stage);
      this.skipBlanks();
      if (this.src[this.pos] === '|' && this.src[this.pos + 1] !== '|') {
        this.pos += this.src[this.pos + 1] === '&' ? 2 : 1;
        this.skipBlanksAndNewlines();
        continue;
      }
      break;
    }
    if (this.src[this.pos] === '&' && this.src[this.pos + 1] !== '&' && this.src[this.pos + 1] !== '>') {
      for (const stage of stages) {
        for (const index of stage) (list.commands[index] as MutableCommand).background = true;
      }
    }
    if (stages.length > 1) list.pipelines.push(stages);
  }

  private parseStage(list: MutableList, closer: Closer): void {
    this.skipBlanks();
    if (this.functionHeader()) {
      this.fnDepth += 1;
      this.skipBlanksAndNewlines();
      this.parseStage(list, closer);
      this.fnDepth -= 1;
      return;
    }
    const c = this.src[this.pos];
    if (c === '(' || (c === '{' && this.isWordEnd(this.pos + 1))) {
      if (!this.enter()) return;
      this.pos += 1;
      this.parseListInto(list, c === '(' ? ')' : '}');
      this.leave();
    }
    this.parseSimple(list, closer);
  }

  private parseSimple(list: MutableList, closer: Closer): void {
    const cmd: MutableCommand = { words: [], redirects: [], background: false };
    for (;;) {
      this.skipBlanks();
      if (this.pos >= this.len || this.overflow) break;
      const c = this.src[this.pos] as string;
      const next = this.src[this.pos + 1];
      if (c === '(' && cmd.words.length > 0 && !parenthesesAllowed(cmd.words)) {
        // `cmd (…)` is a syntax error (a function header was read at the start of the stage).
        this.malformed = true;
        break;
      }
      if (c === '\n' || c === ';' || c === '|' || c === ')' || c === '(') break;
      if (c === '}' && closer === '}' && cmd.words.length === 0 && this.isWordEnd(this.pos + 1)) break;
      if (c === '&') {
        if (next !== '>') break;
        this.parseRedirect(cmd, undefined);
      } else if ((c === '<' || c === '>') && next === '(') {
        cmd.words.push(this.readProcessSubstitution());
      } else if (c === '<' || c === '>') {
        this.parseRedirect(cmd, undefined);
      } else if (c === '#') {
        this.skipComment();
        break;
      } else if (c >= '0' && c <= '9' && this.fdRedirectAhead()) {
        const start = this.pos;
        while (this.src[this.pos] !== '<' && this.src[this.pos] !== '>') this.pos += 1;
        this.parseRedirect(cmd, Number(this.src.slice(start, this.pos)));
      } else {
        const words = this.readWord();
        const last = words[words.length - 1];
        if (last !== undefined && this.src[this.pos] === '(' && !last.quoted && ARRAY_HEAD.test(last.text)) {
          words[words.length - 1] = this.readArray(last);
        }
        for (const word of words) cmd.words.push(word);
      }
    }
    if (cmd.words.length > 0 || cmd.redirects.length > 0) {
      if (this.fnDepth > 0) cmd.inFunction = true;
      list.commands.push(cmd);
      this.charge();
    }
  }

  /**
   * Consumes a function header (`NAME ()`, `function NAME`, `function NAME ()`) and returns
   * true; leaves the position alone and returns false otherwise.
   */
  private functionHeader(): boolean {
    const start = this.pos;
    const keyword = this.src.startsWith('function', this.pos) && /^[ \t]$/.test(this.src[this.pos + 8] ?? '');
    if (keyword) {
      this.pos += 8;
      this.skipBlanks();
    }
    let end = this.pos;
    while (end < this.len && isNameChar(this.src[end] as string)) end += 1;
    if (end === this.pos) {
      this.pos = start;
      return false;
    }
    this.pos = end;
    this.skipBlanks();
    if (this.src[this.pos] === '(') {
      let close = this.pos + 1;
      while (this.src[close] === ' ' || this.src[close] === '\t') close += 1;
      if (this.src[close] === ')') {
        this.pos = close + 1;
        return true;
      }
    }
    if (keyword) return true;
    this.pos = start;
    return false;
  }

  /** `NAME=(a b $(c))`: the elements, read as words, folded into one assignment word. */
  private readArray(head: ShellWord): ShellWord {
    this.pos += 1;
    const elements: ShellWord[] = [];
    while (!this.overflow) {
      this.skipBlanksAndNewlines();
      const c = this.src[this.pos];
      if (c === undefined) {
        this.malformed = true;
        break;
      }
      if (c === ')') {
        this.pos += 1;
        break;
      }
      if (c === '#') {
        this.skipComment();
        continue;
      }
      const before = this.pos;
      for (const word of this.readWord()) elements.push(word);
      if (this.pos === before) {
        this.malformed = true;
        this.pos += 1;
      }
      if (!this.charge()) break;
    }
    const subs = elements.flatMap((word) => word.subs);
    return {
      text: `${head.text}(${elements.map((word) => word.text).join(' ')})`,
      quoted: elements.some((word) => word.quoted),
      dynamic: elements.some((word) => word.dynamic),
      mixedName: false,
      expansionName: undefined,
      expansionUnquoted: false,
      subs,
      expanded: elements.some((word) => word.expanded),
      splittable: elements.some((word) => word.splittable),
      baseDynamic: false,
      baseGlob: false,
      elements,
    };
  }

  private fdRedirectAhead(): boolean {
    let j = this.pos;
    while (
      j < this.len &&
      j - this.pos < 4 &&
      (this.src[j] as string) >= '0' &&
      (this.src[j] as string) <= '9'
    ) {
      j += 1;
    }
    const c = this.src[j];
    return (c === '<' || c === '>') && this.src[j + 1] !== '(';
  }

  private parseRedirect(cmd: MutableCommand, fd: number | undefined): void {
    let op = '>';
    for (const candidate of REDIRECT_OPS) {
      if (this.src.startsWith(candidate, this.pos)) {
        op = candidate;
        break;
      }
    }
    this.pos += op.length;
    this.skipBlanks();
    const redirect: MutableRedirect = { op, fd, target: undefined, body: undefined, bodySubs: [] };
    cmd.redirects.push(redirect);
    const c = this.src[this.pos];
    if (c === undefined || c === '\n' || c === ';' || c === '|' || c === '&' || c === ')') return;
    let target: ShellWord | undefined;
    if ((c === '<' || c === '>') && this.src[this.pos + 1] === '(') target = this.readProcessSubstitution();
    else if (c !== '<' && c !== '>' && c !== '(') target = this.readWord()[0];
    redirect.target = target;
    if (target === undefined) return;
    if (op === '<<' || op === '<<-') {
      this.pending.push({
        redirect,
        delimiter: target.text,
        stripTabs: op === '<<-',
        expand: !target.quoted,
      });
    } else if (op === '<<<') {
      redirect.body = target.text;
    }
  }

  /** Reads the bodies of heredocs opened on the line that just ended. */
  private readHeredocs(): void {
    while (this.pending.length > 0) {
      const doc = this.pending.shift() as PendingHeredoc;
      const start = this.pos;
      let end = this.len;
      let after = this.len;
      let line = this.pos;
      while (line < this.len) {
        const nl = this.src.indexOf('\n', line);
        const lineEnd = nl < 0 ? this.len : nl;
        let text = this.src.slice(line, lineEnd);
        if (doc.stripTabs) text = text.replace(/^\t+/, '');
        if (text === doc.delimiter) {
          end = line;
          after = nl < 0 ? this.len : nl + 1;
          break;
        }
        line = lineEnd + 1;
      }
      let body = this.src.slice(start, end);
      if (doc.stripTabs) body = body.replace(/^\t+/gm, '');
      doc.redirect.body = body;
      this.pos = Math.min(after, this.len);
      if (doc.expand && (body.includes('$') || body.includes('`'))) {
        const inner = new ShellParser(body, this.depth + 1, this.work);
        const builder = new ShellWordBuilder();
        inner.readDoubleQuoted(builder, false);
        doc.redirect.bodySubs = builder.finish()[0]?.subs.slice() ?? [];
        if (inner.malformed) this.malformed = true;
        if (inner.overflow) this.overflow = true;
      }
    }
  }

  private skipBlanksAndNewlines(): void {
    for (;;) {
      this.skipBlanks();
      if (this.src[this.pos] !== '\n') return;
      this.pos += 1;
      this.readHeredocs();
    }
  }

  protected skipComment(): void {
    const nl = this.src.indexOf('\n', this.pos);
    this.pos = nl < 0 ? this.len : nl;
  }
}

/** Characters a function name may hold (no quoting, no metacharacters, no expansions). */
function isNameChar(c: string): boolean {
  return (
    !isWordBreak(c) &&
    c !== '\\' &&
    c !== "'" &&
    c !== '"' &&
    c !== '`' &&
    c !== '$' &&
    c !== '#' &&
    c !== '=' &&
    c !== '{' &&
    c !== '}'
  );
}

/** `case x in (a)…` and `[[ x =~ (a|b) ]]` use parentheses inside one command. */
function parenthesesAllowed(words: readonly ShellWord[]): boolean {
  const first = words[0];
  return first !== undefined && !first.quoted && (first.text === 'case' || first.text === '[[');
}
