/** Where constructs the word reader skips over end: extglob groups, `$((…))`, `${…}` names. */

/** The name a `${…}` form is resolved under: `x`, `arr[@]`, `arr[*]`, `arr[0]`; else undefined. */
export function braceName(content: string, name: string, n: number): string | undefined {
  if (name === '') return undefined;
  if (n === content.length) return name;
  return /^\[(?:[@*]|[0-9]+)\]$/.test(content.slice(n)) ? content : undefined;
}

/** Index just after the `)` closing an extglob group opened at `open` (or `open` when unclosed). */
export function extglobEnd(src: string, open: number): number {
  let depth = 0;
  for (let j = open; j < src.length; j += 1) {
    const c = src[j];
    if (c === '(') depth += 1;
    else if (c === ')') {
      depth -= 1;
      if (depth === 0) return j + 1;
    } else if (c === ' ' || c === '\t' || c === '\n' || c === ';' || c === '&' || c === '"' || c === "'")
      return open;
  }
  return open;
}

/** Index of the `))` closing an arithmetic expansion whose body starts at `from`, or -1. */
export function arithmeticEnd(src: string, from: number): number {
  let depth = 0;
  for (let j = from; j < src.length; j += 1) {
    const c = src[j];
    if (c === '(') depth += 1;
    else if (c === ')') {
      if (depth === 0) return src[j + 1] === ')' ? j : -1;
      depth -= 1;
    } else if (c === '\n' || c === ';' || c === '"' || c === "'") return -1;
  }
  return -1;
}
