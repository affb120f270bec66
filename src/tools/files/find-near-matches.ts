import { type LineProfile, lineProfile, profileSimilarity } from './text-similarity.js';

export interface NearMatch {
  /** 1-based first and last line of the candidate in the file. */
  readonly startLine: number;
  readonly endLine: number;
  /** 1 when the text is the same apart from whitespace; otherwise the mean line similarity. */
  readonly score: number;
  readonly whitespaceOnly: boolean;
}

const MAX_RESULTS = 3;
const MIN_SCORE = 0.5;
/** Above this many line comparisons, only the starts whose anchor line scores best are examined. */
const FULL_SCAN_BUDGET = 1_000_000;
const PREFILTER_KEEP = 40;

const stripSpace = (text: string): string => text.replace(/\s+/g, '');

function needleLines(needle: string): string[] {
  const lines = needle.replace(/\r\n/g, '\n').split('\n');
  while (lines.length > 1 && (lines.at(-1) ?? '').trim() === '') lines.pop();
  while (lines.length > 1 && (lines[0] ?? '').trim() === '') lines.shift();
  return lines;
}

/** Windows whose text equals the needle once all whitespace is removed (indentation drift). */
function whitespaceMatches(fileLines: readonly string[], wanted: readonly string[]): NearMatch[] {
  const compact = stripSpace(wanted.join(''));
  const found: NearMatch[] = [];
  if (compact === '') return found;
  const stripped = fileLines.map(stripSpace);
  const size = wanted.length;
  for (let start = 0; start + size <= stripped.length && found.length < MAX_RESULTS; start += 1) {
    if (
      stripped
        .slice(start, start + size)
        .join('')
        .includes(compact)
    ) {
      found.push({ startLine: start + 1, endLine: start + size, score: 1, whitespaceOnly: true });
      start += size - 1;
    }
  }
  return found;
}

/** Mean line similarity of every window start (or of the prefiltered starts in a huge file). */
function windowScores(fileLines: readonly string[], wanted: readonly string[]): Map<number, number> {
  const size = wanted.length;
  const starts = Math.max(0, fileLines.length - size + 1);
  const needle = wanted.map(lineProfile);
  const scores = new Map<number, number>();
  if (starts * size <= FULL_SCAN_BUDGET) {
    // Each file line is profiled once and compared with every needle line it could align with.
    for (let line = 0; line < fileLines.length; line += 1) {
      const profile = lineProfile(fileLines[line] ?? '');
      for (let offset = 0; offset < size; offset += 1) {
        const start = line - offset;
        if (start < 0 || start >= starts) continue;
        const target = needle[offset] as LineProfile;
        scores.set(start, (scores.get(start) ?? 0) + profileSimilarity(profile, target) / size);
      }
    }
    return scores;
  }
  const anchor = Math.max(
    0,
    wanted.findIndex((line) => line.trim() !== ''),
  );
  const anchorProfile = needle[anchor] as LineProfile;
  const best = Array.from({ length: starts }, (_, start) => ({
    start,
    score: profileSimilarity(lineProfile(fileLines[start + anchor] ?? ''), anchorProfile),
  }))
    .sort((a, b) => b.score - a.score)
    .slice(0, PREFILTER_KEEP);
  for (const { start } of best) {
    let total = 0;
    for (let offset = 0; offset < size; offset += 1) {
      total += profileSimilarity(lineProfile(fileLines[start + offset] ?? ''), needle[offset] as LineProfile);
    }
    scores.set(start, total / size);
  }
  return scores;
}

/**
 * Finds where in `text` the model probably meant `needle` to be, for the error shown when an
 * exact match fails: first text that differs only in whitespace, failing that the windows of
 * the needle's height with the highest mean line similarity (at most three, not overlapping).
 */
export function findNearMatches(text: string, needle: string): NearMatch[] {
  const fileLines = text.replace(/\r\n/g, '\n').split('\n');
  const wanted = needleLines(needle);
  const exact = whitespaceMatches(fileLines, wanted);
  if (exact.length > 0) return exact;
  const size = wanted.length;
  const ranked = [...windowScores(fileLines, wanted)].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const picked: NearMatch[] = [];
  for (const [start, score] of ranked) {
    if (score < MIN_SCORE || picked.length >= MAX_RESULTS) break;
    const overlaps = picked.some((match) => start + 1 <= match.endLine && start + size >= match.startLine);
    if (!overlaps) picked.push({ startLine: start + 1, endLine: start + size, score, whitespaceOnly: false });
  }
  return picked;
}
