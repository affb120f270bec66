import { findOccurrences } from './line-index.js';

export interface ResolvedMatches {
  /** Start offsets of the matches in the file text (may be empty). */
  readonly offsets: readonly number[];
  /** The needle and replacement actually used, after line-ending adaptation. */
  readonly needle: string;
  readonly replacement: string;
  readonly adjustedLineEndings: boolean;
}

type LineEndingStyle = 'lf' | 'crlf' | 'mixed';

function lineEndingStyle(text: string): LineEndingStyle {
  const crlf = text.match(/\r\n/g)?.length ?? 0;
  if (crlf === 0) return 'lf';
  return crlf === (text.match(/\n/g)?.length ?? 0) ? 'crlf' : 'mixed';
}

const toCrlf = (text: string): string => text.replace(/\r?\n/g, '\r\n');
const toLf = (text: string): string => text.replace(/\r\n/g, '\n');

/**
 * Locates `oldString` in `text`, keeping the file's line endings: models usually send `\n`, so in
 * a CRLF file both strings are converted to CRLF (and in an LF file, CRLF strings to LF). A file
 * with mixed endings is matched as given first, then with either conversion.
 */
export function resolveMatches(text: string, oldString: string, newString: string): ResolvedMatches {
  const style = lineEndingStyle(text);
  const variants: [string, string][] =
    style === 'crlf'
      ? [
          [oldString, toCrlf(newString)],
          [toCrlf(oldString), toCrlf(newString)],
        ]
      : style === 'lf'
        ? [
            [oldString, toLf(newString)],
            [toLf(oldString), toLf(newString)],
          ]
        : [
            [oldString, newString],
            [toCrlf(oldString), toCrlf(newString)],
            [toLf(oldString), toLf(newString)],
          ];
  const tried = new Set<string>();
  for (const [needle, replacement] of variants) {
    if (tried.has(needle)) continue;
    tried.add(needle);
    const offsets = findOccurrences(text, needle);
    if (offsets.length > 0) {
      const adjustedLineEndings = needle !== oldString || replacement !== newString;
      return { offsets, needle, replacement, adjustedLineEndings };
    }
  }
  return { offsets: [], needle: oldString, replacement: newString, adjustedLineEndings: false };
}
