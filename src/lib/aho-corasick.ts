/**
 * Finds every occurrence of many strings in one pass over a text (Aho–Corasick over UTF-16 code
 * units, compiled to a full transition table): one table lookup per character, whatever the
 * number of patterns. Built once, used many times. Answers with covered ranges, which is what
 * redaction needs.
 */
export class AhoCorasick {
  /** Character classes: index 0 is "a character no pattern uses". ASCII in a table, the rest in a map. */
  readonly #asciiClass = new Int32Array(128);
  readonly #otherClass = new Map<number, number>();
  readonly #classes: number;
  /** `#delta[state * classes + class]` → next state. */
  readonly #delta: Int32Array;
  /** Length of the longest pattern that ends in each state (own or through failure links); 0: none. */
  readonly #longest: Int32Array;
  readonly #patterns: number;

  constructor(patterns: Iterable<string>) {
    const list = [...new Set(patterns)].filter((p) => p.length > 0);
    this.#patterns = list.length;
    let classes = 1;
    for (const pattern of list) {
      for (let i = 0; i < pattern.length; i += 1) {
        const code = pattern.charCodeAt(i);
        if (this.#classOf(code) === 0) {
          if (code < 128) this.#asciiClass[code] = classes;
          else this.#otherClass.set(code, classes);
          classes += 1;
        }
      }
    }
    this.#classes = classes;

    // The trie: goto edges as (state * classes + class) → state.
    const edges = new Map<number, number>();
    const ends: number[] = [0];
    for (const pattern of list) {
      let state = 0;
      for (let i = 0; i < pattern.length; i += 1) {
        const key = state * classes + this.#classOf(pattern.charCodeAt(i));
        let next = edges.get(key);
        if (next === undefined) {
          next = ends.length;
          ends.push(0);
          edges.set(key, next);
        }
        state = next;
      }
      ends[state] = Math.max(ends[state] as number, pattern.length);
    }
    const states = ends.length;
    this.#delta = new Int32Array(states * classes);
    this.#longest = Int32Array.from(ends);
    const fail = new Int32Array(states);

    // Breadth first: a state's row is its own edges, and its failure state's row elsewhere.
    const queue: number[] = [];
    for (let c = 1; c < classes; c += 1) {
      const child = edges.get(c);
      if (child === undefined) continue;
      this.#delta[c] = child;
      queue.push(child);
    }
    for (let head = 0; head < queue.length; head += 1) {
      const state = queue[head] as number;
      const row = state * classes;
      const fallbackRow = (fail[state] as number) * classes;
      for (let c = 1; c < classes; c += 1) {
        const child = edges.get(row + c);
        if (child === undefined) {
          this.#delta[row + c] = this.#delta[fallbackRow + c] as number;
          continue;
        }
        this.#delta[row + c] = child;
        const link = this.#delta[fallbackRow + c] as number;
        fail[child] = link;
        this.#longest[child] = Math.max(this.#longest[child] as number, this.#longest[link] as number);
        queue.push(child);
      }
    }
  }

  #classOf(code: number): number {
    return code < 128 ? (this.#asciiClass[code] as number) : (this.#otherClass.get(code) ?? 0);
  }

  /** How many distinct patterns the automaton holds. */
  get size(): number {
    return this.#patterns;
  }

  /**
   * Ranges `[start, end)` of `text` covered by at least one pattern, merged and in order.
   * Overlapping and adjacent matches come back as one range.
   */
  ranges(text: string): [number, number][] {
    const out: [number, number][] = [];
    if (this.#patterns === 0) return out;
    const classes = this.#classes;
    const delta = this.#delta;
    const longest = this.#longest;
    let state = 0;
    for (let i = 0; i < text.length; i += 1) {
      state = delta[state * classes + this.#classOf(text.charCodeAt(i))] as number;
      const length = longest[state] as number;
      if (length === 0) continue;
      // A longer match may reach back over earlier ranges: fold them in.
      let start = i + 1 - length;
      let end = i + 1;
      for (
        let last = out[out.length - 1];
        last !== undefined && last[1] >= start;
        last = out[out.length - 1]
      ) {
        out.pop();
        start = Math.min(start, last[0]);
        end = Math.max(end, last[1]);
      }
      out.push([start, end]);
    }
    return out;
  }
}
