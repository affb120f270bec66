import { type LengthUnit, measureLength } from '../../platforms/adapter.js';
import { closeLine, fenceStateAfter, longestFenceMarker, type OpenFence, reopenLine } from './code-fences.js';
import { findBreak, graphemeSafeCut, indexWithin, protectedSpans, type Span } from './text-boundaries.js';

export interface SplitOptions {
  /** Longest part, in `unit`s (the adapter's `limits.maxMessageLength`). At least 2. */
  readonly maxLength: number;
  readonly unit: LengthUnit;
  /** Append ` (1/3)` … to each part when there are several. Default false. */
  readonly partIndicators?: boolean;
}

/**
 * Splits a message into parts that each fit the platform's limit:
 *
 * - a part ends at a paragraph break, else a line break, else a space (or CJK punctuation) in
 *   the second half of the room it has, else it is cut hard;
 * - a cut never falls between the halves of a UTF-16 surrogate pair, and a hard cut moves back
 *   to the start of the grapheme it would split (ZWJ emoji, flags, combining marks);
 * - a markdown link, a bare URL or a fence line that fits in a part is never cut;
 * - a fenced code block running over a cut is closed at the end of the part and reopened, with
 *   its language tag, at the start of the next (room for both is reserved).
 *
 * Text that fits is returned as is; empty or blank text gives no parts. The result is a pure
 * function of the input, so a re-run splits the same way (delivery receipts rely on it).
 */
export function splitMessage(text: string, options: SplitOptions): string[] {
  const { maxLength, unit } = options;
  if (!Number.isInteger(maxLength) || maxLength < 2) {
    throw new RangeError(`splitMessage: maxLength must be an integer of at least 2 (got ${maxLength})`);
  }
  if (text.trim() === '') return [];
  if (measureLength(text, unit) <= maxLength) return [text];
  if (options.partIndicators !== true) return splitWithReserve(text, maxLength, unit, 0);

  // Room for " (i/n)": guess the digits of n, and split again if the guess was short.
  for (let digits = 1; ; digits += 1) {
    const widest = ` (${'9'.repeat(digits)}/${'9'.repeat(digits)})`;
    const reserve = measureLength(widest, unit);
    if (maxLength - reserve < Math.max(2, Math.floor(maxLength / 2))) {
      return splitWithReserve(text, maxLength, unit, 0); // no room for indicators at this size
    }
    const parts = splitWithReserve(text, maxLength, unit, reserve);
    if (String(parts.length).length <= digits) {
      return parts.map((part, index) => {
        const separator = /\n(?:`{3,}|~{3,})$/.test(part) ? '\n' : ' ';
        return `${part}${separator}(${index + 1}/${parts.length})`;
      });
    }
  }
}

function splitWithReserve(text: string, maxLength: number, unit: LengthUnit, reserve: number): string[] {
  const measure = (value: string): number => measureLength(value, unit);
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const markerRoom = longestFenceMarker(text);
  const closeReserve = markerRoom === 0 ? 0 : markerRoom + 1;
  const parts: string[] = [];
  let rest = text;
  let open: OpenFence | undefined;
  let atLineStart = true;
  let closedLast = false;

  while (rest.length > 0) {
    if (open !== undefined && atLineStart && closedLast) {
      // The block ends right where the last part closed it: drop its own closing line rather
      // than reopening it just to close it again.
      const firstLine = /^[^\n]*/.exec(rest)?.[0] ?? '';
      if (fenceStateAfter(firstLine, open, true) === undefined) {
        rest = rest.slice(firstLine.length).replace(/^(?:[ \t]*\r?\n)+/, '');
        open = undefined;
        continue;
      }
    }
    const reopen = open === undefined ? '' : reopenLine(open);
    // Counting stops at the room left: measuring all of a long rest on every part is quadratic.
    const room = maxLength - reserve - measure(reopen);
    if (room >= 0 && indexWithin(rest, room, unit) >= rest.length) {
      if (rest.trim() !== '') parts.push(reopen + rest.trimEnd());
      break;
    }
    let budget = maxLength - reserve - measure(reopen) - closeReserve;
    // A fence marker with an absurd language tag must not starve the content: split plainly.
    const repair = budget >= Math.max(2, Math.floor(maxLength / 3));
    if (!repair) budget = maxLength - reserve;

    const { cut, skip, atLineStart: nextAtLineStart } = chooseCut(rest, budget, unit, segmenter);
    const content = rest.slice(0, cut).trimEnd();
    // A line cut in the middle is judged whole: "``` x" is no fence line even if "```" is.
    const lineEnd = nextAtLineStart ? cut : rest.indexOf('\n', cut);
    const after = fenceStateAfter(rest.slice(0, lineEnd === -1 ? rest.length : lineEnd), open, atLineStart);
    if (content.trim() !== '') {
      const prefix = repair ? reopen : '';
      const suffix = repair && after !== undefined ? closeLine(after) : '';
      parts.push(prefix + content + suffix);
      closedLast = suffix !== '';
    }
    rest = rest.slice(cut + skip);
    open = after;
    atLineStart = nextAtLineStart;
    if (open === undefined && atLineStart) {
      // Outside code, blank lines at the start of a part carry nothing.
      const blank = /^(?:[ \t]*\r?\n)+/.exec(rest)?.[0].length ?? 0;
      rest = rest.slice(blank);
    }
  }
  return parts;
}

/** Picks the end of the next part: a good break within the budget, moved off protected spans. */
function chooseCut(
  rest: string,
  budget: number,
  unit: LengthUnit,
  segmenter: Intl.Segmenter,
): { cut: number; skip: number; atLineStart: boolean } {
  const windowEnd = indexWithin(rest, budget, unit);
  // Spans longer than the window cannot be kept whole anyway, so a span that matters ends
  // before twice the window.
  const spans = protectedSpans(rest.slice(0, 2 * windowEnd + 1), windowEnd);
  let window = windowEnd;
  for (;;) {
    const found = findBreak(rest, window);
    let cut = found.cut;
    if (found.hard) cut = graphemeSafeCut(rest, cut, segmenter);
    const inside = innermostStart(spans, cut);
    if (inside === undefined || inside <= 0) {
      return {
        cut,
        skip: cut === found.cut ? found.skip : 0,
        atLineStart: found.atLineStart && cut === found.cut,
      };
    }
    // The cut falls inside a link (or fence line) that fits: end the part before it instead.
    window = inside;
  }
}

/** The earliest start of a span that strictly contains `cut`, if any. */
function innermostStart(spans: readonly Span[], cut: number): number | undefined {
  let earliest: number | undefined;
  for (const span of spans) {
    if (span.start < cut && cut < span.end && (earliest === undefined || span.start < earliest)) {
      earliest = span.start;
    }
  }
  return earliest;
}
