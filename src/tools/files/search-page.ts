import type { BigIntStats } from 'node:fs';

/** One matching line found by a content search. `file` is absolute (under the real search root). */
export interface ContentHit {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/** What both search engines (ripgrep and the built-in walker) are asked. */
export interface SearchQuery {
  /** Absolute, symlink-resolved directory or file to search. */
  readonly root: string;
  readonly rootIsFile: boolean;
  /** A regex for content searches, a glob for file-name searches. */
  readonly pattern: string;
  /** Only content searches: limits which files are searched (glob). */
  readonly fileGlob: string | undefined;
  /** Results skipped before the page starts, and the page size. */
  readonly offset: number;
  readonly limit: number;
  readonly signal: AbortSignal;
  /**
   * True for a file the search must not show (a protected file, or an alias of one by
   * device+inode when `info` is given). Content and file-name searches both leave it out.
   */
  readonly protectedFile: (file: string, info?: Pick<BigIntStats, 'dev' | 'ino' | 'nlink'>) => boolean;
}

/** One page of results plus how many there are in all. Both engines return this shape. */
export interface SearchPage<T> {
  readonly items: readonly T[];
  readonly total: number;
  /** Distinct files among all results counted. */
  readonly files: number;
  /** False when counting stopped at the cap, so `total` and `files` are lower bounds. */
  readonly complete: boolean;
}

/** Results counted at most per search; beyond this the totals are reported as "at least". */
export const SEARCH_COUNT_CAP = 10_000;

/** Keeps the results of one page while counting all of them, up to a cap. One per search call. */
export class PageCollector<T> {
  private readonly items: T[] = [];
  private total = 0;
  private files = 0;
  private lastFile: string | undefined;

  constructor(
    private readonly offset: number,
    private readonly limit: number,
    private readonly cap = SEARCH_COUNT_CAP,
  ) {}

  /** Records one result; returns false once the cap is reached and the search should stop. */
  add(item: T, file: string): boolean {
    if (this.total >= this.cap) return false;
    if (this.total >= this.offset && this.total < this.offset + this.limit) this.items.push(item);
    this.total += 1;
    if (file !== this.lastFile) {
      this.files += 1;
      this.lastFile = file;
    }
    return this.total < this.cap;
  }

  page(complete: boolean): SearchPage<T> {
    return { items: this.items, total: this.total, files: this.files, complete };
  }
}
