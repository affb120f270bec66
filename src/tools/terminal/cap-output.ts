/** Share of the kept characters taken from the start of the output; the rest comes from the end. */
const HEAD_SHARE = 0.4;

export function omissionMarker(omitted: number): string {
  return `\n[… ${omitted} characters omitted …]\n`;
}

/** Keeps at most `maxChars` of `text`: its head and its tail around a visible omission marker. */
export function capOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * HEAD_SHARE);
  const tail = maxChars - head;
  return text.slice(0, head) + omissionMarker(text.length - head - tail) + text.slice(text.length - tail);
}

/**
 * Collects streamed output without holding more than `maxChars` of it: the first 40 % is kept as
 * it arrives, the last 60 % is a rolling tail. Memory stays bounded whatever the command prints.
 */
export class HeadTailCollector {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  #head = '';
  #tail = '';
  #total = 0;

  constructor(maxChars: number) {
    this.#headLimit = Math.floor(maxChars * HEAD_SHARE);
    this.#tailLimit = maxChars - this.#headLimit;
  }

  push(text: string): void {
    this.#total += text.length;
    let rest = text;
    if (this.#head.length < this.#headLimit) {
      const room = this.#headLimit - this.#head.length;
      this.#head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (rest.length === 0) return;
    const joined = this.#tail + rest;
    this.#tail = joined.length > this.#tailLimit ? joined.slice(joined.length - this.#tailLimit) : joined;
  }

  /** Characters received in total. */
  get total(): number {
    return this.#total;
  }

  /** Characters dropped between head and tail. */
  get omitted(): number {
    return this.#total - this.#head.length - this.#tail.length;
  }

  text(): string {
    const omitted = this.omitted;
    return omitted > 0 ? this.#head + omissionMarker(omitted) + this.#tail : this.#head + this.#tail;
  }
}
