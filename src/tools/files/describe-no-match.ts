import { findNearMatches } from './find-near-matches.js';

const MAX_LINES_PER_CANDIDATE = 8;
const MAX_LINE_CHARS = 120;
/** The registry caps error texts near 2,000 characters; stay well below. */
const MAX_MESSAGE_CHARS = 1700;

const LINE_NUMBER_PREFIX = /^\s*\d+\|/;

/** The error text for a patch whose old_string is nowhere in the file: where it probably is. */
export function describeNoMatch(text: string, oldString: string, shown: string): string {
  const head = `old_string was not found in ${shown}.`;
  const advice =
    'Copy the text exactly as the file has it (read_file shows it; leave out the `N|` prefixes), then retry.';
  const needleLines = oldString.split(/\r?\n/).filter((line) => line.trim() !== '');
  const prefixed =
    needleLines.length > 0 && needleLines.every((line) => LINE_NUMBER_PREFIX.test(line))
      ? ' old_string seems to include read_file line-number prefixes such as `12|`; remove them.'
      : '';
  const candidates = findNearMatches(text, oldString);
  if (candidates.length === 0) {
    return `${head}${prefixed} Nothing similar was found either; the file may have changed — read it again. ${advice}`;
  }
  const fileLines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  const parts: string[] = [`${head}${prefixed} Closest match${candidates.length === 1 ? '' : 'es'}:`];
  let used = parts[0]?.length ?? 0;
  for (const candidate of candidates) {
    const label = candidate.whitespaceOnly
      ? 'same text except whitespace/indentation'
      : `${Math.round(candidate.score * 100)}% similar`;
    const range =
      candidate.startLine === candidate.endLine
        ? `line ${candidate.startLine}`
        : `lines ${candidate.startLine}-${candidate.endLine}`;
    const width = String(candidate.endLine).length;
    const shownLines: string[] = [];
    const last = Math.min(candidate.endLine, candidate.startLine + MAX_LINES_PER_CANDIDATE - 1);
    for (let number = candidate.startLine; number <= last; number += 1) {
      const line = fileLines[number - 1] ?? '';
      const clipped = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)} …` : line;
      shownLines.push(`  ${String(number).padStart(width)}|${clipped}`);
    }
    if (last < candidate.endLine) shownLines.push(`  … (${candidate.endLine - last} more lines)`);
    const block = [`- ${range} (${label}):`, ...shownLines].join('\n');
    if (used + block.length > MAX_MESSAGE_CHARS && parts.length > 1) break;
    parts.push(block);
    used += block.length;
  }
  parts.push(advice);
  return parts.join('\n');
}
