/** A fenced code block left open at some point of a text. */
export interface OpenFence {
  /** The opening run, e.g. ``` or ~~~~. */
  readonly marker: string;
  /** The language tag (first word of the info string); may be empty. */
  readonly lang: string;
}

// CommonMark: up to three spaces of indentation, then three or more backticks or tildes. A
// backtick fence's info string may not contain backticks.
const OPENING = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const CLOSING = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/** True when the line opens or closes a fence (whatever the current state). */
export function isFenceLine(line: string): boolean {
  const match = OPENING.exec(line);
  if (match === null) return false;
  return !(match[1]?.startsWith('`') === true && (match[2] ?? '').includes('`'));
}

/** Longest fence marker in the text (0 without fences): room to reserve for closing one. */
export function longestFenceMarker(text: string): number {
  let longest = 0;
  for (const line of text.split('\n')) {
    if (!isFenceLine(line)) continue;
    const marker = OPENING.exec(line)?.[1] ?? '';
    longest = Math.max(longest, marker.length);
  }
  return longest;
}

/**
 * The fence state after `content`, given the state before it. When `atLineStart` is false the
 * first line is the tail of a line cut earlier and cannot be a fence line.
 */
export function fenceStateAfter(
  content: string,
  before: OpenFence | undefined,
  atLineStart: boolean,
): OpenFence | undefined {
  let open = before;
  const lines = content.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    if (index === 0 && !atLineStart) continue;
    const line = (lines[index] ?? '').replace(/\r$/, '');
    if (open === undefined) {
      const match = OPENING.exec(line);
      if (match === null || !isFenceLine(line)) continue;
      const marker = match[1] ?? '```';
      open = { marker, lang: (match[2] ?? '').trim().split(/\s+/)[0] ?? '' };
      continue;
    }
    const match = CLOSING.exec(line);
    const marker = match?.[1];
    if (marker !== undefined && marker[0] === open.marker[0] && marker.length >= open.marker.length) {
      open = undefined;
    }
  }
  return open;
}

/** The line that reopens `fence` at the start of the next part. */
export function reopenLine(fence: OpenFence): string {
  return `${fence.marker}${fence.lang}\n`;
}

/** What closes `fence` at the end of a part. */
export function closeLine(fence: OpenFence): string {
  return `\n${fence.marker}`;
}
