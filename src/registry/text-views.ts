/**
 * Views of a text in which printed secrets are easier to find, each with the way back to the
 * original positions. Searching a view instead of the text catches a value that a command split
 * over lines or columns: `base64` wraps at 76 characters, `xxd -p` at 60, `od` puts spaces between
 * bytes, and hex dumps interleave offsets and an ASCII column.
 */
export interface TextView {
  readonly text: string;
  /** `origin[i]` is the position in the original text of the view's character `i`. */
  readonly origin: Int32Array;
}

/** Spaces, tabs, line breaks, and the escaped `\n` `\r` `\t` of text that holds JSON. */
function skipAt(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code === 32 || (code >= 9 && code <= 13)) return 1;
  if (code === 92) {
    const next = text.charCodeAt(i + 1);
    if (next === 110 || next === 114 || next === 116) return 2;
  }
  return 0;
}

/** The characters of `segments` (ranges of `text`, in order) without whitespace, as one view. */
function compactSegments(text: string, segments: readonly (readonly [number, number])[]): TextView {
  let total = 0;
  for (const [start, end] of segments) total += end - start;
  const origin = new Int32Array(total);
  const pieces: string[] = [];
  let length = 0;
  for (const [start, end] of segments) {
    let runStart = start;
    let i = start;
    while (i < end) {
      const skip = skipAt(text, i);
      if (skip === 0) {
        origin[length] = i;
        length += 1;
        i += 1;
        continue;
      }
      if (i > runStart) pieces.push(text.slice(runStart, i));
      i += skip;
      runStart = i;
    }
    if (end > runStart) pieces.push(text.slice(runStart, Math.min(end, text.length)));
  }
  return { text: pieces.join(''), origin: origin.subarray(0, length) };
}

/** The whole text without whitespace (line wraps, spaces between bytes). */
export function compactView(text: string): TextView {
  return compactSegments(text, [[0, text.length]]);
}

/** `compactView(value).text`: how a value is spelled when searched in a compact view. */
export function compact(value: string): string {
  return compactView(value).text;
}

/** `xxd`: `00000000: 6865 6c6c 6f0a  hello.` */
const XXD = /^[0-9a-fA-F]{7,8}: ((?:[0-9a-fA-F]{2}){1,2}(?: (?:[0-9a-fA-F]{2}){1,2})*) {2,}(.+)$/d;
/** `hexdump -C` / `hd`: `00000000  68 65 6c 6c 6f 0a  |hello.|` */
const HEXDUMP_C = /^[0-9a-fA-F]{8} {2}((?:[0-9a-fA-F]{2} {1,2})+) *\|(.+)\|$/d;
/** `od` and friends with an offset column: `0000000   h   e   l   l   o  \n`. */
const OFFSET = /^(?:[0-7]{7}|[0-9a-fA-F]{6,8}):? +(.+)$/d;
const LOOKS_LIKE_DUMP = /^(?:[0-7]{7}|[0-9a-fA-F]{6,8}):? /m;

/**
 * For dump-shaped output, two more views: the data columns of every dump line without their
 * offsets (hex bytes, or `od -c` characters), and the ASCII columns of `xxd` / `hexdump -C`.
 * Empty when the text holds no dump lines.
 */
export function dumpViews(text: string): TextView[] {
  if (!LOOKS_LIKE_DUMP.test(text)) return [];
  const data: [number, number][] = [];
  const ascii: [number, number][] = [];
  let lineStart = 0;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = text.length;
    const line = text.slice(lineStart, lineEnd).replace(/\r$/, '');
    const columns = XXD.exec(line) ?? HEXDUMP_C.exec(line);
    if (columns?.indices?.[1] !== undefined && columns.indices[2] !== undefined) {
      data.push([lineStart + columns.indices[1][0], lineStart + columns.indices[1][1]]);
      ascii.push([lineStart + columns.indices[2][0], lineStart + columns.indices[2][1]]);
    } else {
      const offset = OFFSET.exec(line);
      if (offset?.indices?.[1] !== undefined) {
        data.push([lineStart + offset.indices[1][0], lineStart + offset.indices[1][1]]);
      }
    }
    lineStart = lineEnd + 1;
  }
  const views: TextView[] = [];
  if (data.length > 0) views.push(compactSegments(text, data));
  if (ascii.length > 0) views.push(compactSegments(text, ascii));
  return views;
}
