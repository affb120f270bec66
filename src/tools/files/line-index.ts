/** Offsets at which each line of `text` starts; line N (1-based) starts at `starts[N - 1]`. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

/** The 1-based line holding character `offset`. */
export function lineOfOffset(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((starts[middle] ?? 0) <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}

/** Every start offset of `needle` in `text`, left to right, without overlaps. */
export function findOccurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  if (needle === '') return found;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length))
    found.push(at);
  return found;
}
