/** The contract every web_search backend meets. */
export interface SearchResult {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
}

export interface SearchOptions {
  /** Results wanted at most; a provider may return fewer. */
  readonly limit: number;
  readonly signal: AbortSignal;
}

export interface SearchProvider {
  readonly name: string;
  search(query: string, options: SearchOptions): Promise<SearchResult[]>;
}

/** Limits applied to calls to a provider's own (trusted) endpoint. */
export interface ProviderLimits {
  /** Milliseconds per search request. */
  readonly timeoutMs: number;
  /** Bytes of response read at most. */
  readonly maxBytes: number;
}

const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

/** Snippets from some providers carry highlighting markup (`<strong>`) and entities: strip them. */
export function plainText(text: string): string {
  return text
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X'))
        return safeCodePoint(Number.parseInt(name.slice(2), 16), whole);
      if (name.startsWith('#')) return safeCodePoint(Number.parseInt(name.slice(1), 10), whole);
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

function safeCodePoint(code: number, fallback: string): string {
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : fallback;
}
