import type { Stats } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';
import { parseEntries } from './memory-entries.js';

export interface MemoryFileCacheOptions {
  /** Most files kept (least recently used dropped first). */
  readonly maxFiles: number;
  /** How long a checked file is trusted without even a `stat`; 0 checks on every read. */
  readonly recheckAfterMs: number;
}

/** Counters for tests and metrics. */
export interface MemoryFileCacheStats {
  /** Files held now. */
  readonly files: number;
  /** Reads answered from memory with no system call. */
  readonly hits: number;
  /** `stat` calls made to check a held file. */
  readonly checks: number;
  /** Times a file was opened and parsed (cache misses, changed files, and every change). */
  readonly loads: number;
}

/** What identifies one version of a file; any difference means "read it again". */
interface Stamp {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  /** Set by the kernel on every write, chmod or utimes, so tools that restore mtime are caught. */
  readonly ctimeMs: number;
}

/** `missing`: a stat saying ENOENT confirms it; `undefined`: unknown, the next check re-reads. */
type Version = Stamp | 'missing' | undefined;

interface Slot {
  readonly entries: readonly string[];
  readonly version: Version;
  /** `performance.now()` of the last read or check. */
  readonly checkedAt: number;
}

/**
 * A file changed this recently may be changed again within the same timestamp tick (coarse
 * kernel clocks, 1 s or 2 s on some filesystems) with the same size, leaving an identical stamp:
 * such a file is never trusted by its stamp, only re-read (as git does with "racily clean" files).
 */
const RACY_MS = 2_000;

const NO_ENTRIES: readonly string[] = Object.freeze([]);

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';

function stampOf(stats: Stats, observedAt: number): Stamp | undefined {
  if (observedAt - stats.mtimeMs <= RACY_MS) return undefined;
  return { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs };
}

function sameStamp(stamp: Stamp, stats: Stats): boolean {
  return (
    stamp.ino === stats.ino &&
    stamp.size === stats.size &&
    stamp.mtimeMs === stats.mtimeMs &&
    stamp.ctimeMs === stats.ctimeMs
  );
}

/**
 * The parsed entries of memory files, by path, so that building a system prompt for a new
 * session costs no file open when the files have not changed. A held file is trusted for
 * `recheckAfterMs`; after that one `stat` (shared by concurrent readers) confirms it —
 * same inode, size, mtime and ctime, or still missing — or it is read again. So a file edited by
 * hand or by another process is seen at the latest `recheckAfterMs` after the edit. The owner
 * reports its own writes with `wrote`, which are seen at once and never depend on that delay;
 * changes read the file with `load`, never from the cache.
 */
export class MemoryFileCache {
  readonly #recheckAfterMs: number;
  /** Undefined when `maxFiles` is 0: nothing is kept. */
  readonly #slots: LRUCache<string, Slot> | undefined;
  /** The one check or load in flight per path; a write removes it so its older result is dropped. */
  readonly #pending = new Map<string, Promise<readonly string[]>>();
  #hits = 0;
  #checks = 0;
  #loads = 0;

  constructor(options: MemoryFileCacheOptions) {
    this.#slots = options.maxFiles > 0 ? new LRUCache({ max: options.maxFiles }) : undefined;
    this.#recheckAfterMs = options.recheckAfterMs;
  }

  /** The entries of `path`: from memory while fresh, else checked or read again. */
  get(path: string): Promise<readonly string[]> {
    const slot = this.#slots?.get(path);
    if (slot !== undefined && performance.now() - slot.checkedAt < this.#recheckAfterMs) {
      this.#hits += 1;
      return Promise.resolve(slot.entries);
    }
    const inFlight = this.#pending.get(path);
    if (inFlight !== undefined) return inFlight;
    const pending = this.#refresh(path, slot).then(
      (fresh) => {
        if (this.#pending.get(path) === pending) {
          this.#pending.delete(path);
          this.#slots?.set(path, fresh);
        }
        return fresh.entries;
      },
      (error: unknown) => {
        if (this.#pending.get(path) === pending) this.#pending.delete(path);
        throw error;
      },
    );
    this.#pending.set(path, pending);
    return pending;
  }

  /** Reads `path` from disk whatever is held (for changes, which must never edit a stale copy). */
  async load(path: string): Promise<readonly string[]> {
    return (await this.#read(path)).entries;
  }

  /** Records what the owner just wrote to `path`; later reads see it at once. */
  wrote(path: string, entries: readonly string[]): void {
    this.#pending.delete(path);
    // The version stays unknown: the first check after the delay reads the file back once.
    this.#slots?.set(path, {
      entries: Object.freeze([...entries]),
      version: undefined,
      checkedAt: performance.now(),
    });
  }

  /** Drops what is held for `path` (before a write whose outcome is not known yet). */
  forget(path: string): void {
    this.#pending.delete(path);
    this.#slots?.delete(path);
  }

  get stats(): MemoryFileCacheStats {
    return { files: this.#slots?.size ?? 0, hits: this.#hits, checks: this.#checks, loads: this.#loads };
  }

  /** Confirms a held slot with one `stat`, or reads the file. */
  async #refresh(path: string, slot: Slot | undefined): Promise<Slot> {
    if (slot === undefined || slot.version === undefined) return this.#read(path);
    this.#checks += 1;
    let stats: Stats;
    try {
      stats = await stat(path);
    } catch (error) {
      if (!isMissing(error)) throw error;
      return { entries: NO_ENTRIES, version: 'missing', checkedAt: performance.now() };
    }
    if (slot.version !== 'missing' && sameStamp(slot.version, stats)) {
      return { ...slot, checkedAt: performance.now() };
    }
    return this.#read(path);
  }

  /** Opens, stamps (before reading, from the same inode) and parses the file. */
  async #read(path: string): Promise<Slot> {
    this.#loads += 1;
    const observedAt = Date.now();
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if (!isMissing(error)) throw error;
      return { entries: NO_ENTRIES, version: 'missing', checkedAt: performance.now() };
    }
    try {
      const stats = await handle.stat();
      const entries = Object.freeze(parseEntries(await handle.readFile('utf8')));
      return { entries, version: stampOf(stats, observedAt), checkedAt: performance.now() };
    } finally {
      await handle.close();
    }
  }
}
