import { lineOfOffset, lineStarts } from './line-index.js';

export interface PatchHunk {
  /** 1-based first line of the hunk in the old and in the new file. */
  readonly oldStart: number;
  readonly newStart: number;
  readonly before: readonly string[];
  readonly after: readonly string[];
}

export interface ReplacementResult {
  readonly text: string;
  readonly hunks: readonly PatchHunk[];
}

function splitLines(block: string): string[] {
  if (block === '') return [];
  const lines = block.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (block.endsWith('\n')) lines.pop();
  return lines;
}

/**
 * Replaces `needle` with `replacement` at each offset in `matches` (sorted, non-overlapping) and
 * describes the change as whole-line hunks: matches whose lines touch are merged into one hunk.
 */
export function applyReplacements(
  text: string,
  matches: readonly number[],
  needle: string,
  replacement: string,
): ReplacementResult {
  const starts = lineStarts(text);
  const lineStartAt = (offset: number): number => starts[lineOfOffset(starts, offset) - 1] ?? 0;
  /** End of the line holding the match end; a match ending in a newline ends its own block. */
  const blockEndAt = (end: number): number => {
    if (end > 0 && text[end - 1] === '\n') return end;
    const newline = text.indexOf('\n', end);
    return newline === -1 ? text.length : newline + 1;
  };

  const pieces: string[] = [];
  const hunks: PatchHunk[] = [];
  let copied = 0;
  let lineDelta = 0;
  let index = 0;
  while (index < matches.length) {
    const first = matches[index] ?? 0;
    const blockStart = lineStartAt(first);
    let blockEnd = blockEndAt(first + needle.length);
    const group = [first];
    index += 1;
    while (index < matches.length && (matches[index] ?? 0) <= blockEnd) {
      const next = matches[index] ?? 0;
      group.push(next);
      blockEnd = Math.max(blockEnd, blockEndAt(next + needle.length));
      index += 1;
    }
    let after = '';
    let cursor = blockStart;
    for (const at of group) {
      after += text.slice(cursor, at) + replacement;
      cursor = at + needle.length;
    }
    after += text.slice(cursor, blockEnd);
    const before = text.slice(blockStart, blockEnd);
    pieces.push(text.slice(copied, blockStart), after);
    copied = blockEnd;
    const oldStart = lineOfOffset(starts, blockStart);
    const beforeLines = splitLines(before);
    const afterLines = splitLines(after);
    hunks.push({ oldStart, newStart: oldStart + lineDelta, before: beforeLines, after: afterLines });
    lineDelta += afterLines.length - beforeLines.length;
  }
  pieces.push(text.slice(copied));
  return { text: pieces.join(''), hunks };
}

const MAX_HUNKS_SHOWN = 5;
const MAX_LINES_PER_SIDE = 12;
const MAX_LINE_CHARS = 200;

function side(prefix: string, lines: readonly string[]): string[] {
  const clip = (line: string): string =>
    line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)} …` : line;
  const shown = lines.slice(0, MAX_LINES_PER_SIDE).map((line) => `${prefix}${clip(line)}`);
  if (lines.length > MAX_LINES_PER_SIDE)
    shown.push(`${prefix}… (${lines.length - MAX_LINES_PER_SIDE} more lines)`);
  return shown;
}

/** A compact unified-diff-like rendering of the hunks, capped in size. */
export function renderHunks(hunks: readonly PatchHunk[]): string {
  const out: string[] = [];
  for (const hunk of hunks.slice(0, MAX_HUNKS_SHOWN)) {
    out.push(
      `@@ -${hunk.oldStart},${hunk.before.length} +${hunk.newStart},${hunk.after.length} @@`,
      ...side('-', hunk.before),
      ...side('+', hunk.after),
    );
  }
  if (hunks.length > MAX_HUNKS_SHOWN) out.push(`… and ${hunks.length - MAX_HUNKS_SHOWN} more changed places`);
  return out.join('\n');
}
