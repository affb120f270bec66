import { HermesError } from '../../errors/hermes-error.js';

const INLINE_FLAGS = /^\(\?([ims]+)\)/;

/**
 * Compiles a search pattern for the built-in search. Patterns are meant for ripgrep (Rust regex
 * syntax); the common subset is the same in JavaScript, and a leading `(?i)`-style flag group —
 * which JavaScript lacks — is turned into flags.
 */
export function compileSearchRegex(pattern: string): RegExp {
  const inline = INLINE_FLAGS.exec(pattern);
  const source = inline === null ? pattern : pattern.slice(inline[0].length);
  const flags = inline === null ? '' : [...new Set(inline[1])].join('');
  try {
    return new RegExp(source, flags);
  } catch (error) {
    throw invalidPatternError(pattern, (error as Error).message);
  }
}

export function invalidPatternError(pattern: string, detail: string): HermesError {
  return new HermesError(
    'search_failed',
    `Invalid regular expression ${JSON.stringify(pattern)}: ${detail.trim()}. Fix the pattern; to match characters such as ( [ { . * + ? literally, escape them with a backslash.`,
  );
}
