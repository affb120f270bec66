export interface RingSlice {
  readonly text: string;
  /** Absolute offset of the first character returned. */
  readonly from: number;
  /** Characters between the requested offset and `from` that were already dropped. */
  readonly lost: number;
}

/**
 * A bounded character buffer for one background process: keeps the most recent `maxChars`
 * characters and remembers absolute offsets, so a reader can ask for "everything since X".
 */
export class OutputRing {
  readonly #maxChars: number;
  #chunks: string[] = [];
  #kept = 0;
  #dropped = 0;

  constructor(maxChars: number) {
    this.#maxChars = Math.max(1, maxChars);
  }

  append(text: string): void {
    if (text.length === 0) return;
    this.#chunks.push(text);
    this.#kept += text.length;
    while (this.#kept > this.#maxChars) {
      const first = this.#chunks[0] as string;
      const excess = this.#kept - this.#maxChars;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#kept -= first.length;
        this.#dropped += first.length;
      } else {
        this.#chunks[0] = first.slice(excess);
        this.#kept -= excess;
        this.#dropped += excess;
      }
    }
    if (this.#chunks.length > 512) this.#chunks = [this.#chunks.join('')];
  }

  /** Absolute offset of the oldest character still kept. */
  get start(): number {
    return this.#dropped;
  }

  /** Absolute offset just past the newest character (characters written in total). */
  get end(): number {
    return this.#dropped + this.#kept;
  }

  /** Everything still kept. */
  text(): string {
    if (this.#chunks.length > 1) this.#chunks = [this.#chunks.join('')];
    return this.#chunks[0] ?? '';
  }

  /** What was written from absolute offset `offset` on (clamped to what is still kept). */
  readFrom(offset: number): RingSlice {
    const from = Math.min(Math.max(offset, this.#dropped), this.end);
    return { text: this.text().slice(from - this.#dropped), from, lost: Math.max(0, from - offset) };
  }
}
