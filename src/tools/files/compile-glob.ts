import { HermesError } from '../../errors/hermes-error.js';
import { compileGlobPattern, GlobSyntaxError } from '../../lib/glob-match.js';

/**
 * Compiles a gitignore-style glob (as ripgrep's --glob understands it) into a predicate over a
 * `/`-separated path relative to the search root. A glob without `/` matches the file name at
 * any depth (`*.ts`); one with `/` matches the whole relative path (`src/*.ts`, `**\/*.md`).
 * `*` and `?` stay within one path segment, `**` crosses segments, `{a,b}` and `[abc]` work
 * (lib/glob-match.ts, paths dialect).
 */
export function compileGlob(glob: string): (relativePath: string) => boolean {
  let pattern = glob.startsWith('./') ? glob.slice(2) : glob;
  if (pattern.endsWith('/')) pattern = pattern.slice(0, -1);
  const anchored = pattern.includes('/');
  if (pattern.startsWith('/')) pattern = pattern.slice(1);
  let matches: (text: string) => boolean;
  try {
    matches = compileGlobPattern(pattern, { paths: true, braces: true, escapes: true });
  } catch (error) {
    if (!(error instanceof GlobSyntaxError)) throw error;
    throw new HermesError('search_failed', `Invalid glob ${JSON.stringify(glob)}: ${error.message}.`);
  }
  if (anchored) return matches;
  return (relativePath) => matches(relativePath.slice(relativePath.lastIndexOf('/') + 1));
}
