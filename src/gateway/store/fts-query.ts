/**
 * Turns free text into a safe search plan for the trigram FTS5 index. Nothing of the input is
 * ever parsed as FTS5 syntax: every term becomes a double-quoted string (inner quotes doubled),
 * so `"`, `*`, `NEAR(`, `-`, `AND` or `:` are matched as text. All terms must occur.
 *
 * The trigram tokenizer cannot match terms shorter than three characters (many CJK words are
 * two), so those become escaped `LIKE` filters instead.
 */
export interface SearchPlan {
  /** FTS5 MATCH expression, or undefined when every term is short. */
  readonly match: string | undefined;
  /** `LIKE … ESCAPE '\'` patterns for the short terms. */
  readonly likes: readonly string[];
  /** The terms themselves, for highlighting. */
  readonly terms: readonly string[];
}

export const MAX_SEARCH_TERMS = 16;
export const MAX_TERM_LENGTH = 100;
const MIN_TRIGRAM_TERM = 3;

/** Undefined when the input has no searchable term (empty, blank or control characters only). */
export function planSearch(input: string): SearchPlan | undefined {
  const cleaned = input.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  const terms: string[] = [];
  for (const raw of cleaned.split(/\s+/)) {
    if (raw === '') continue;
    const term = [...raw].slice(0, MAX_TERM_LENGTH).join('');
    if (!terms.some((t) => t.toLowerCase() === term.toLowerCase())) terms.push(term);
    if (terms.length >= MAX_SEARCH_TERMS) break;
  }
  if (terms.length === 0) return undefined;
  const long = terms.filter((t) => [...t].length >= MIN_TRIGRAM_TERM);
  const short = terms.filter((t) => [...t].length < MIN_TRIGRAM_TERM);
  return {
    match: long.length === 0 ? undefined : long.map(quoteFtsString).join(' '),
    likes: short.map((t) => `%${escapeLike(t)}%`),
    terms,
  };
}

export function quoteFtsString(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

export function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Characters of context kept before and after the first match. */
const SNIPPET_BEFORE = 60;
const SNIPPET_AFTER = 120;

/**
 * An excerpt of `content` around the first matched term, with matches wrapped in `**`.
 * Falls back to the start of the content when no term is found verbatim (e.g. a match that
 * only exists after removing diacritics).
 */
export function makeSnippet(content: string, terms: readonly string[]): string {
  const lower = content.toLowerCase();
  const comparable = lower.length === content.length;
  const needles = comparable ? terms.map((t) => t.toLowerCase()).filter((t) => t.length > 0) : [];
  let first = -1;
  for (const needle of needles) {
    const at = lower.indexOf(needle);
    if (at !== -1 && (first === -1 || at < first)) first = at;
  }
  let start = first === -1 ? 0 : Math.max(0, first - SNIPPET_BEFORE);
  let end = Math.min(content.length, (first === -1 ? 0 : first) + SNIPPET_AFTER);
  // Never cut a surrogate pair in half.
  if (start > 0 && isLowSurrogate(content.charCodeAt(start))) start -= 1;
  if (end < content.length && isLowSurrogate(content.charCodeAt(end))) end += 1;
  let out = '';
  let i = start;
  while (i < end) {
    const hit = needles.find((needle) => lower.startsWith(needle, i));
    if (hit === undefined) {
      out += content[i];
      i += 1;
    } else {
      out += `**${content.slice(i, i + hit.length)}**`;
      i += hit.length;
    }
  }
  const flat = out.replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${flat}${end < content.length ? '…' : ''}`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
