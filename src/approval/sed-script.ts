/**
 * Reads a sed program far enough to find what it runs and what it writes: the `e` command
 * (with a command, or the pattern space), the `s///e` flag, and `w`/`W` and `s///w` files.
 * Linear; a program it cannot follow is reported as `unknown` (sed would likely refuse it).
 */

export interface SedEffects {
  /** Commands run by `e CMD`; `''` for `e` alone or `s///e` (the pattern space runs). */
  readonly exec: string[];
  /** Files written by `w FILE`, `W FILE`, `s///w FILE`. */
  readonly writes: string[];
}

/** Commands whose argument runs to the end of the line. */
const LINE_ARGUMENT = new Set([
  'a',
  'i',
  'c',
  'r',
  'R',
  'w',
  'W',
  'e',
  ':',
  'b',
  't',
  'T',
  'v',
  'l',
  'L',
  'q',
  'Q',
]);

export function sedEffects(script: string): SedEffects {
  const exec: string[] = [];
  const writes: string[] = [];
  const n = script.length;
  let i = 0;
  const lineEnd = (from: number): number => {
    const nl = script.indexOf('\n', from);
    return nl < 0 ? n : nl;
  };
  const skipDelimited = (from: number, delimiter: string): number => {
    let j = from;
    while (j < n && script[j] !== delimiter) {
      if (script[j] === '\\') j += 1;
      else if (script[j] === '\n') return j;
      j += 1;
    }
    return j;
  };
  while (i < n) {
    const c = script[i] as string;
    if (c === ' ' || c === '\t' || c === '\n' || c === ';' || c === '{' || c === '}' || c === '!') {
      i += 1;
      continue;
    }
    if (c === '#') {
      i = lineEnd(i);
      continue;
    }
    // Addresses: numbers, $, ranges, steps, /regex/ and \cREGEXc.
    if ((c >= '0' && c <= '9') || c === '$' || c === ',' || c === '~' || c === '+') {
      i += 1;
      continue;
    }
    if (c === '/' || c === '\\') {
      const delimiter = c === '/' ? '/' : (script[i + 1] ?? '/');
      i = skipDelimited(i + (c === '/' ? 1 : 2), delimiter) + 1;
      while (script[i] === 'I' || script[i] === 'M') i += 1;
      continue;
    }
    if (c === 's' || c === 'y') {
      const delimiter = script[i + 1];
      if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') break;
      let j = skipDelimited(i + 2, delimiter) + 1;
      j = skipDelimited(j, delimiter) + 1;
      if (c === 'y') {
        i = j;
        continue;
      }
      while (j < n) {
        const flag = script[j] as string;
        if (flag === 'e') exec.push('');
        if (flag === 'w') {
          const end = lineEnd(j + 1);
          writes.push(script.slice(j + 1, end).trim());
          j = end;
          break;
        }
        if (!/[gpiImMe0-9]/.test(flag)) break;
        j += 1;
      }
      i = j;
      continue;
    }
    if (LINE_ARGUMENT.has(c)) {
      const end = lineEnd(i + 1);
      // GNU one-liners end `b`, `t`, `q`… arguments at `;`; a/i/c/r/w/e take the whole line.
      const semicolon = 'btTvlLqQ:'.includes(c) ? script.indexOf(';', i + 1) : -1;
      const stop = semicolon >= 0 && semicolon < end ? semicolon : end;
      const argument = script.slice(i + 1, stop).trim();
      if (c === 'e') exec.push(argument);
      if (c === 'w' || c === 'W') writes.push(argument);
      i = stop;
      if ('aic'.includes(c) && argument.endsWith('\\')) {
        // POSIX `a\` text: the following lines are text while they end with a backslash.
        let line = stop + 1;
        for (;;) {
          const end = lineEnd(line);
          const text = script.slice(line, end);
          line = end + 1;
          if (!text.endsWith('\\') || line >= n) break;
        }
        i = line;
      }
      continue;
    }
    i += 1;
  }
  return { exec, writes };
}
