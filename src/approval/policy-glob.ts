/**
 * Shell-style glob matching (fnmatch semantics: `*` any run of characters including `/`, `?` one
 * character, `[abc]`, `[a-z]`, `[!abc]`; a `[` without a closing `]` is literal). Whole-string
 * match. Written as a two-pointer matcher rather than a RegExp so a hostile pattern or a 100 KB
 * command costs at most O(pattern × text) steps, never exponential backtracking.
 */

type Token =
  | { readonly kind: 'star' }
  | { readonly kind: 'one' }
  | { readonly kind: 'literal'; readonly char: string }
  | {
      readonly kind: 'class';
      readonly negate: boolean;
      readonly ranges: readonly (readonly [string, string])[];
    };

export interface GlobOptions {
  readonly caseInsensitive?: boolean;
}

export function globMatch(pattern: string, text: string, options: GlobOptions = {}): boolean {
  const fold = options.caseInsensitive === true;
  const tokens = tokenize(fold ? pattern.toLowerCase() : pattern);
  const subject = Array.from(fold ? text.toLowerCase() : text);
  let t = 0;
  let s = 0;
  let starToken = -1;
  let starSubject = 0;
  while (s < subject.length) {
    const token = tokens[t];
    if (token !== undefined && token.kind === 'star') {
      starToken = t;
      starSubject = s;
      t += 1;
      continue;
    }
    if (token !== undefined && matchesOne(token, subject[s] as string)) {
      t += 1;
      s += 1;
      continue;
    }
    if (starToken < 0) return false;
    t = starToken + 1;
    starSubject += 1;
    s = starSubject;
  }
  while (tokens[t]?.kind === 'star') t += 1;
  return t === tokens.length;
}

/** True when the pattern uses any wildcard; otherwise it can only match its exact text. */
export function hasGlobSyntax(pattern: string): boolean {
  return /[*?[]/.test(pattern);
}

function matchesOne(token: Token, char: string): boolean {
  switch (token.kind) {
    case 'one':
      return true;
    case 'literal':
      return token.char === char;
    case 'class': {
      const inside = token.ranges.some(([low, high]) => char >= low && char <= high);
      return inside !== token.negate;
    }
    case 'star':
      return false;
  }
}

function tokenize(pattern: string): Token[] {
  const chars = Array.from(pattern);
  const tokens: Token[] = [];
  for (let i = 0; i < chars.length; i += 1) {
    const char = chars[i] as string;
    if (char === '*') {
      if (tokens[tokens.length - 1]?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (char === '?') {
      tokens.push({ kind: 'one' });
    } else if (char === '[') {
      const parsed = parseClass(chars, i);
      if (parsed === undefined) tokens.push({ kind: 'literal', char });
      else {
        tokens.push(parsed.token);
        i = parsed.end;
      }
    } else {
      tokens.push({ kind: 'literal', char });
    }
  }
  return tokens;
}

function parseClass(chars: readonly string[], start: number): { token: Token; end: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (chars[i] === '!' || chars[i] === '^') {
    negate = true;
    i += 1;
  }
  const ranges: [string, string][] = [];
  let first = true;
  while (i < chars.length) {
    const char = chars[i] as string;
    if (char === ']' && !first) return { token: { kind: 'class', negate, ranges }, end: i };
    first = false;
    const high = chars[i + 2];
    if (chars[i + 1] === '-' && high !== undefined && high !== ']') {
      ranges.push([char, high]);
      i += 3;
    } else {
      ranges.push([char, char]);
      i += 1;
    }
  }
  return undefined;
}
