/** Edit distance between two short strings (names); O(a·b) time, O(b) memory. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** A line prepared for repeated similarity checks: whitespace squashed, lower-cased, pairs sorted. */
export interface LineProfile {
  readonly key: string;
  /** Each pair of adjacent characters encoded as one number, sorted ascending. */
  readonly pairs: Uint32Array;
}

/** Collapses whitespace runs and trims: the form in which near matches are compared. */
export function squashWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function lineProfile(text: string): LineProfile {
  const key = squashWhitespace(text).toLowerCase();
  const pairs = new Uint32Array(Math.max(0, key.length - 1));
  for (let index = 0; index < pairs.length; index += 1) {
    pairs[index] = key.charCodeAt(index) * 0x10000 + key.charCodeAt(index + 1);
  }
  return { key, pairs: pairs.sort() };
}

/**
 * Similarity of two lines in [0, 1]: the Dice coefficient over character pairs, case-insensitive,
 * whitespace squashed. Two blank lines are identical.
 */
export function profileSimilarity(left: LineProfile, right: LineProfile): number {
  if (left.key === right.key) return 1;
  const a = left.pairs;
  const b = right.pairs;
  if (a.length === 0 || b.length === 0) return 0;
  let shared = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      shared += 1;
      i += 1;
      j += 1;
    } else if (x < y) i += 1;
    else j += 1;
  }
  return (2 * shared) / (a.length + b.length);
}

export function lineSimilarity(a: string, b: string): number {
  return profileSimilarity(lineProfile(a), lineProfile(b));
}
