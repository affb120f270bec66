/**
 * Shell-style glob matching for approval allowlists and deny rules (fnmatch semantics: `*` any
 * run of characters including `/`, `?` one character, `[abc]`, `[a-z]`, `[!abc]`; a `[` without a
 * closing `]` is literal). Whole-string match. The one glob matcher of the gateway
 * (lib/glob-match.ts, commands dialect): an automaton run once over the text, so a hostile
 * pattern or a 100 KB command costs at most O(pattern × text) steps, never exponential backtracking.
 */
import { globMatch as match } from '../lib/glob-match.js';

export { hasGlobSyntax } from '../lib/glob-match.js';

export interface GlobOptions {
  readonly caseInsensitive?: boolean;
}

export function globMatch(pattern: string, text: string, options: GlobOptions = {}): boolean {
  return match(pattern, text, { caseInsensitive: options.caseInsensitive === true });
}
