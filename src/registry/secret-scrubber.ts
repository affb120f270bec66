import { secretValues } from '../config/mask-secrets.js';
import { AhoCorasick } from '../lib/aho-corasick.js';
import { MIN_ENCODED_VALUE_CHARS, secretForms } from './secret-forms.js';
import { compact, compactView, dumpViews, type TextView } from './text-views.js';

/** Values shorter than this are never searched (they would blank ordinary words). */
export const MIN_SECRET_CHARS = 4;

export const REDACTED = '[redacted]';

/**
 * Blanks known secret values in text: the values themselves and the encodings a command can
 * print them in (see `secretForms`), also when split by line wraps, spaces or dump columns (see
 * `text-views`). One automaton for all spellings, built once: scrubbing costs one pass per view,
 * whatever the number of secrets.
 */
export class SecretScrubber {
  readonly #matcher: AhoCorasick;

  constructor(values: Iterable<string>) {
    const patterns = new Set<string>();
    for (const value of values) {
      if (value.length < MIN_SECRET_CHARS) continue;
      for (const form of secretForms(value)) {
        const spelled = compact(form);
        // A value of 4–5 characters is matched only as written; encodings of it start at 6.
        if (spelled.length >= Math.min(MIN_ENCODED_VALUE_CHARS, value.length)) patterns.add(spelled);
      }
    }
    this.#matcher = new AhoCorasick(patterns);
  }

  /** True when there is nothing to look for. */
  get empty(): boolean {
    return this.#matcher.size === 0;
  }

  scrub(text: string): string {
    if (this.empty || text.length === 0) return text;
    const ranges: [number, number][] = [];
    const search = (view: TextView): void => {
      for (const [start, end] of this.#matcher.ranges(view.text)) {
        ranges.push([view.origin[start] as number, (view.origin[end - 1] as number) + 1]);
      }
    };
    search(compactView(text));
    for (const view of dumpViews(text)) search(view);
    if (ranges.length === 0) return text;
    ranges.sort((a, b) => a[0] - b[0]);
    const pieces: string[] = [];
    let at = 0;
    let open: [number, number] | undefined;
    for (const range of ranges) {
      if (open !== undefined && range[0] <= open[1]) {
        open[1] = Math.max(open[1], range[1]);
        continue;
      }
      if (open !== undefined) {
        pieces.push(text.slice(at, open[0]), REDACTED);
        at = open[1];
      }
      open = [range[0], range[1]];
    }
    if (open !== undefined) {
      pieces.push(text.slice(at, open[0]), REDACTED);
      at = open[1];
    }
    pieces.push(text.slice(at));
    return pieces.join('');
  }

  /**
   * Scrubs every string (and object key) of a JSON-like value; other values are kept. A cycle is
   * left as it is (the caller's serialisation reports it).
   */
  scrubDeep(value: unknown): unknown {
    const seen = new Set<object>();
    const walk = (node: unknown): unknown => {
      if (typeof node === 'string') return this.scrub(node);
      if (typeof node !== 'object' || node === null || seen.has(node)) return node;
      if (Array.isArray(node)) {
        seen.add(node);
        const out = node.map(walk);
        seen.delete(node);
        return out;
      }
      const proto = Object.getPrototypeOf(node);
      if (proto !== Object.prototype && proto !== null) return node;
      seen.add(node);
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(node)) out[this.scrub(key)] = walk(child);
      seen.delete(node);
      return out;
    };
    return this.empty ? value : walk(value);
  }
}

const byConfig = new WeakMap<object, SecretScrubber>();

/**
 * The scrubber for a loaded configuration: its secrets, the values of `$HERMES_HOME/.env` and
 * the other secret values `secretValues` finds. Built once per configuration object.
 */
export function secretScrubberFor(config: object): SecretScrubber {
  let scrubber = byConfig.get(config);
  if (scrubber === undefined) {
    scrubber = new SecretScrubber(secretValues(config));
    byConfig.set(config, scrubber);
  }
  return scrubber;
}
