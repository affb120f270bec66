import type { LengthUnit } from '../../platforms/adapter.js';
import { isFenceLine } from './code-fences.js';

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/**
 * The largest string index `i` such that `text.slice(0, i)` measures at most `budget` units and
 * `i` does not fall between the two halves of a surrogate pair.
 */
export function indexWithin(text: string, budget: number, unit: LengthUnit): number {
  if (unit === 'utf16') {
    let index = Math.min(Math.max(0, budget), text.length);
    if (
      index > 0 &&
      index < text.length &&
      isHighSurrogate(text.charCodeAt(index - 1)) &&
      isLowSurrogate(text.charCodeAt(index))
    ) {
      index -= 1;
    }
    return index;
  }
  let index = 0;
  let count = 0;
  while (index < text.length && count < budget) {
    const code = text.codePointAt(index) ?? 0;
    index += code > 0xffff ? 2 : 1;
    count += 1;
  }
  return index;
}

/** Looks this far around a cut for the grapheme it may fall into (ZWJ emoji, flags, marks). */
const GRAPHEME_LOOKAROUND = 64;

/**
 * Moves a cut back to the start of the grapheme cluster it falls into (so a family emoji or a
 * flag is not torn apart); returns the cut unchanged when it already is a boundary or when the
 * cluster starts at 0.
 */
export function graphemeSafeCut(text: string, cut: number, segmenter: Intl.Segmenter): number {
  if (cut <= 0 || cut >= text.length) return cut;
  const from = Math.max(0, cut - GRAPHEME_LOOKAROUND);
  const around = text.slice(from, Math.min(text.length, cut + GRAPHEME_LOOKAROUND));
  const segment = segmenter.segment(around).containing(cut - from);
  if (segment === undefined) return cut;
  const start = from + segment.index;
  return start > 0 && start < cut ? start : cut;
}

/** A range `[start, end)` that should stay in one part when it fits. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

// `[text](url)` and `![alt](url)`, allowing one level of parentheses inside the URL. The text
// holds no `[`: a match attempt then ends at the next bracket, so a run of `[` stays linear.
const MARKDOWN_LINK = /!?\[[^[\]\n]{0,2000}\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*\)/g;
const BARE_URL = /\bhttps?:\/\/[^\s<>()[\]]+/g;

/** Markdown links, bare URLs and fence lines of `text`, each at most `maxSpan` long. */
export function protectedSpans(text: string, maxSpan: number): Span[] {
  const spans: Span[] = [];
  for (const pattern of [MARKDOWN_LINK, BARE_URL]) {
    for (const match of text.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (end - start <= maxSpan) spans.push({ start, end });
    }
  }
  let lineStart = 0;
  while (lineStart < text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    if (lineEnd - lineStart <= maxSpan && isFenceLine(text.slice(lineStart, lineEnd))) {
      spans.push({ start: lineStart, end: lineEnd });
    }
    lineStart = lineEnd + 1;
  }
  return spans;
}

/** Where a part ends, and how many separator characters after it are dropped. */
export interface Break {
  readonly cut: number;
  readonly skip: number;
  /** The next part starts at the beginning of a line. */
  readonly atLineStart: boolean;
  readonly hard: boolean;
}

// Sentence punctuation of scripts written without spaces (CJK): a cut may follow it.
const CJK_STOPS = new Set(['。', '！', '？', '；', '，', '、', '：']);

/**
 * The best place to end a part that may use `text.slice(0, windowEnd)`: a paragraph break, else
 * a line break, else a space (or CJK punctuation) — each only in the second half of the window,
 * so parts do not come out tiny — else a hard cut at the window's end. A separator sitting right
 * at `windowEnd` counts: it is dropped, not sent.
 */
export function findBreak(text: string, windowEnd: number): Break {
  const area = text.slice(0, Math.min(text.length, windowEnd + 1));
  const half = Math.floor(windowEnd / 2);
  const newlinesFrom = (index: number): number => /^(?:\r?\n)+/.exec(text.slice(index))?.[0].length ?? 0;

  const paragraph = area.lastIndexOf('\n\n');
  if (paragraph > 0 && paragraph >= half) {
    const cut = trimCarriageReturn(text, paragraph);
    return { cut, skip: newlinesFrom(cut), atLineStart: true, hard: false };
  }
  const line = area.lastIndexOf('\n');
  if (line > 0 && line >= half) {
    const cut = trimCarriageReturn(text, line);
    return { cut, skip: newlinesFrom(cut), atLineStart: true, hard: false };
  }
  let space = -1;
  let afterStop = -1;
  for (let index = area.length - 1; index > 0 && index >= half; index -= 1) {
    const char = area[index] ?? '';
    if (char === ' ' || char === '\t') {
      space = index;
      break;
    }
    if (CJK_STOPS.has(char) && index + 1 <= windowEnd) {
      afterStop = index + 1;
      break;
    }
  }
  if (space > 0) {
    const run = /^[ \t]+/.exec(text.slice(space))?.[0].length ?? 1;
    return { cut: space, skip: run, atLineStart: false, hard: false };
  }
  if (afterStop > 0) return { cut: afterStop, skip: 0, atLineStart: false, hard: false };
  return { cut: windowEnd, skip: 0, atLineStart: false, hard: true };
}

function trimCarriageReturn(text: string, newline: number): number {
  return newline > 0 && text[newline - 1] === '\r' ? newline - 1 : newline;
}
