import { HermesError } from '../../errors/hermes-error.js';

const REGEX_SPECIAL = /[.+^${}()|[\]\\*?]/;

function escapeChar(char: string): string {
  return REGEX_SPECIAL.test(char) ? `\\${char}` : char;
}

/** `[…]` at `start`: returns the regex class and the index after it, or undefined if unclosed. */
function charClass(glob: string, start: number): { source: string; next: number } | undefined {
  let index = start + 1;
  let negate = false;
  if (glob[index] === '!' || glob[index] === '^') {
    negate = true;
    index += 1;
  }
  let body = '';
  if (glob[index] === ']') {
    body += '\\]';
    index += 1;
  }
  while (index < glob.length && glob[index] !== ']') {
    const char = glob[index] ?? '';
    body += char === '\\' || char === '[' || char === '^' ? `\\${char}` : char;
    index += 1;
  }
  if (index >= glob.length) return undefined;
  return { source: `[${negate ? '^/' : ''}${body}]`, next: index + 1 };
}

function globSource(glob: string): string {
  let out = '';
  let braces = 0;
  for (let index = 0; index < glob.length; ) {
    const char = glob[index] ?? '';
    if (char === '*') {
      if (glob[index + 1] === '*') {
        const atSegmentStart = index === 0 || glob[index - 1] === '/';
        const after = glob[index + 2];
        if (atSegmentStart && after === '/') {
          out += '(?:.*/)?';
          index += 3;
          continue;
        }
        if (atSegmentStart && after === undefined) {
          out += '.*';
          index += 2;
          continue;
        }
        index += 1;
      }
      out += '[^/]*';
      index += 1;
    } else if (char === '?') {
      out += '[^/]';
      index += 1;
    } else if (char === '[') {
      const parsed = charClass(glob, index);
      if (parsed === undefined) {
        out += '\\[';
        index += 1;
      } else {
        out += parsed.source;
        index = parsed.next;
      }
    } else if (char === '{') {
      braces += 1;
      out += '(?:';
      index += 1;
    } else if (char === '}' && braces > 0) {
      braces -= 1;
      out += ')';
      index += 1;
    } else if (char === ',' && braces > 0) {
      out += '|';
      index += 1;
    } else if (char === '\\' && index + 1 < glob.length) {
      out += escapeChar(glob[index + 1] ?? '');
      index += 2;
    } else {
      out += escapeChar(char);
      index += 1;
    }
  }
  if (braces > 0) {
    throw new HermesError('search_failed', `Invalid glob ${JSON.stringify(glob)}: a '{' is never closed.`);
  }
  return out;
}

/**
 * Compiles a gitignore-style glob (as ripgrep's --glob understands it) into a predicate over a
 * `/`-separated path relative to the search root. A glob without `/` matches the file name at
 * any depth (`*.ts`); one with `/` matches the whole relative path (`src/*.ts`, `**\/*.md`).
 * `*` and `?` stay within one path segment, `**` crosses segments, `{a,b}` and `[abc]` work.
 */
export function compileGlob(glob: string): (relativePath: string) => boolean {
  let pattern = glob.startsWith('./') ? glob.slice(2) : glob;
  if (pattern.endsWith('/')) pattern = pattern.slice(0, -1);
  const anchored = pattern.includes('/');
  if (pattern.startsWith('/')) pattern = pattern.slice(1);
  const regex = new RegExp(`^${globSource(pattern)}$`);
  if (anchored) return (relativePath) => regex.test(relativePath);
  return (relativePath) => regex.test(relativePath.slice(relativePath.lastIndexOf('/') + 1));
}
