import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { HermesError } from '../../errors/hermes-error.js';
import { writeFileAtomic } from '../files/write-file-atomic.js';
import { checkMemoryContent } from './check-memory-content.js';
import { KeyedSerializer } from './keyed-serializer.js';
import {
  entriesSize,
  formatUsage,
  listPreviews,
  previewEntry,
  serializeEntries,
  uniqueEntries,
} from './memory-entries.js';
import { MemoryFileCache, type MemoryFileCacheStats } from './memory-file-cache.js';
import { type MemoryScopeSource, memoryScope, SCOPE_PATTERN } from './memory-scope.js';
import { renderMemoryForPrompt } from './render-memory-for-prompt.js';

/** `memory`: the agent's own notes; `user`: what it knows about the user. */
export type MemoryTarget = 'memory' | 'user';

/** Hermes' default caps, in characters (entries plus delimiters). */
export const DEFAULT_MEMORY_LIMITS: Readonly<Record<MemoryTarget, number>> = Object.freeze({
  memory: 2_200,
  user: 1_375,
});

const FILE_NAMES: Readonly<Record<MemoryTarget, string>> = { memory: 'MEMORY.md', user: 'USER.md' };
const LABELS: Readonly<Record<MemoryTarget, string>> = { memory: 'Memory', user: 'User profile' };

export interface MemoryStoreOptions {
  /** Folder holding one sub-folder per scope; main.ts passes `$HERMES_HOME/memories`. */
  readonly root: string;
  /** Caps in characters; missing targets keep Hermes' defaults (2,200 and 1,375). */
  readonly limits?: Partial<Record<MemoryTarget, number>>;
  /** Most files whose parsed entries are kept in memory (least recently read dropped first); default 1,000. */
  readonly cacheFiles?: number;
  /**
   * How long a kept file is trusted before a `stat` checks it again, in ms; default 1,000, 0 checks
   * on every read. Only edits from outside this store wait for it; its own changes show at once.
   */
  readonly recheckAfterMs?: number;
  /**
   * Where entries live instead of files under `root` (the gateway passes the PostgreSQL one when
   * DATABASE_URL is set, so every worker on every machine sees the same notes).
   */
  readonly entries?: MemoryEntriesBackend;
}

/** Entries of one scope and target kept somewhere other than files (a shared database). */
export interface MemoryEntriesBackend {
  read(scope: string, target: MemoryTarget): Promise<readonly string[]>;
  /**
   * Runs `change` on the current entries with every other writer of the same scope and target
   * held off (across processes); stores `next` when it returns one. Nothing is stored when it throws.
   */
  update<T>(
    scope: string,
    target: MemoryTarget,
    change: (entries: readonly string[]) => { readonly next?: readonly string[]; readonly result: T },
  ): Promise<T>;
}

type Change<T> = (entries: readonly string[]) => { readonly next?: readonly string[]; readonly result: T };

/** The live state of one target after a read or a change. */
export interface MemoryView {
  readonly target: MemoryTarget;
  readonly entries: readonly string[];
  /** Characters used, as counted against the cap. */
  readonly used: number;
  readonly limit: number;
}

export interface MemoryChange extends MemoryView {
  /** False when nothing had to be written (the entry was already there). */
  readonly changed: boolean;
  readonly message: string;
}

/**
 * Persistent notes and user profiles, one folder per scope (see `memoryScope`), each holding
 * `MEMORY.md` and `USER.md`. Every change re-reads the file, applies the edit, checks the cap and
 * replaces the file atomically; changes to one file run one at a time (in this process), so
 * concurrent adds never lose each other. Reads are served from a small cache (see
 * `MemoryFileCache`): the store's own changes update it at once, edits made by hand or by another
 * process are seen within `recheckAfterMs`. Created once by main.ts.
 */
export class MemoryStore {
  readonly root: string;
  readonly limits: Readonly<Record<MemoryTarget, number>>;
  readonly #serializer = new KeyedSerializer();
  readonly #cache: MemoryFileCache;
  readonly #entries: MemoryEntriesBackend | undefined;

  constructor(options: MemoryStoreOptions) {
    this.root = options.root;
    this.#entries = options.entries;
    this.limits = Object.freeze({ ...DEFAULT_MEMORY_LIMITS, ...options.limits });
    for (const [target, limit] of Object.entries(this.limits)) {
      if (!Number.isInteger(limit) || limit <= 0) {
        throw new HermesError('config_invalid', `memory limit for '${target}' must be a positive integer`);
      }
    }
    const maxFiles = options.cacheFiles ?? 1_000;
    const recheckAfterMs = options.recheckAfterMs ?? 1_000;
    if (!Number.isInteger(maxFiles) || maxFiles < 0) {
      throw new HermesError('config_invalid', 'memory cacheFiles must be a non-negative integer');
    }
    if (!Number.isFinite(recheckAfterMs) || recheckAfterMs < 0) {
      throw new HermesError('config_invalid', 'memory recheckAfterMs must be a non-negative number');
    }
    this.#cache = new MemoryFileCache({ maxFiles, recheckAfterMs });
  }

  /** The read cache's counters (for tests and metrics). */
  get cacheStats(): MemoryFileCacheStats {
    return this.#cache.stats;
  }

  /** The file of one target in one scope; refuses a scope that is not a plain folder name. */
  pathOf(scope: string, target: MemoryTarget): string {
    if (!SCOPE_PATTERN.test(scope)) {
      throw new HermesError('path_refused', 'invalid memory scope (expected a name made by memoryScope)');
    }
    return join(this.root, scope, FILE_NAMES[target]);
  }

  /**
   * The memory section of a system prompt for the user (or session) `source` names: their scope
   * (`memoryScope`) rendered by `renderMemoryForPrompt`; empty when there is nothing kept. The
   * turn runner calls it once per session, so the gateway needs no value of this module.
   */
  promptSection(source: MemoryScopeSource): Promise<string> {
    return renderMemoryForPrompt(this, memoryScope(source));
  }

  async read(scope: string, target: MemoryTarget): Promise<MemoryView> {
    const path = this.pathOf(scope, target);
    if (this.#entries !== undefined) return this.#view(target, await this.#entries.read(scope, target));
    return this.#view(target, await this.#cache.get(path));
  }

  /** Read, change, write of one file (or backend row) with other writers held off. */
  #update<T>(scope: string, target: MemoryTarget, change: Change<T>): Promise<T> {
    const path = this.pathOf(scope, target);
    if (this.#entries !== undefined) return this.#entries.update(scope, target, change);
    return this.#serializer.run(path, async () => {
      const { next, result } = change(await this.#cache.load(path));
      if (next !== undefined) await this.#save(path, next);
      return result;
    });
  }

  /** Adds an entry; an exact duplicate is not added twice; refused when it would pass the cap. */
  async add(scope: string, target: MemoryTarget, content: string): Promise<MemoryChange> {
    const entry = content.trim();
    if (entry === '')
      throw new HermesError('usage', "'content' is empty: give the text of the entry to add.");
    checkMemoryContent(entry);
    return this.#update(scope, target, (entries) => {
      if (entries.includes(entry)) {
        return {
          result: this.#change(target, entries, false, 'This entry is already saved; nothing was added.'),
        };
      }
      const next = [...entries, entry];
      const limit = this.limits[target];
      const size = entriesSize(next);
      if (size > limit) {
        const current = entriesSize(entries);
        throw new HermesError(
          'memory_full',
          `${LABELS[target]} is at ${formatUsage(current, limit)}; this entry (${entriesSize([entry])} chars) would bring it to ${size.toLocaleString('en-US')}, over the limit. ` +
            `Make room first: merge or shorten entries with action 'replace', or drop outdated ones with action 'remove', then add again. Current entries:\n${listPreviews(entries)}`,
        );
      }
      return { next, result: this.#change(target, next, true, 'Entry added.') };
    });
  }

  /** Replaces the one entry containing `oldText` with `content`. */
  async replace(
    scope: string,
    target: MemoryTarget,
    oldText: string,
    content: string,
  ): Promise<MemoryChange> {
    const needle = oldText.trim();
    const entry = content.trim();
    if (needle === '')
      throw new HermesError('usage', "'old_text' is empty: give a short unique part of the entry.");
    if (entry === '') {
      throw new HermesError(
        'usage',
        "'content' is empty: give the new text (use action 'remove' to delete).",
      );
    }
    checkMemoryContent(entry);
    return this.#update(scope, target, (entries) => {
      const index = this.#findOne(target, entries, needle);
      const next = uniqueEntries(entries.map((item, i) => (i === index ? entry : item)));
      if (next.length === entries.length && next[index] === entries[index]) {
        return {
          result: this.#change(target, entries, false, 'The entry already has this text; nothing changed.'),
        };
      }
      const limit = this.limits[target];
      const size = entriesSize(next);
      // A replacement that does not grow the file is always allowed (the cap may have been lowered).
      if (size > limit && size > entriesSize(entries)) {
        throw new HermesError(
          'memory_full',
          `The replacement would bring ${LABELS[target]} to ${size.toLocaleString('en-US')}/${limit.toLocaleString('en-US')} chars, over the limit. Shorten the new text, or remove other entries first.`,
        );
      }
      const merged =
        next.length < entries.length ? ' It matched another entry exactly, so the two were merged.' : '';
      return { next, result: this.#change(target, next, true, `Entry replaced.${merged}`) };
    });
  }

  /** Removes the one entry containing `oldText`. */
  async remove(scope: string, target: MemoryTarget, oldText: string): Promise<MemoryChange> {
    const needle = oldText.trim();
    if (needle === '')
      throw new HermesError('usage', "'old_text' is empty: give a short unique part of the entry.");
    return this.#update(scope, target, (entries) => {
      const index = this.#findOne(target, entries, needle);
      const next = entries.filter((_, i) => i !== index);
      return { next, result: this.#change(target, next, true, 'Entry removed.') };
    });
  }

  /**
   * The index of the entry `needle` identifies: the only entry containing it, or the only one
   * equal to it when it is also part of longer entries.
   */
  #findOne(target: MemoryTarget, entries: readonly string[], needle: string): number {
    const hits = entries.flatMap((entry, index) => (entry.includes(needle) ? [index] : []));
    if (hits.length === 1) return hits[0]!;
    const shown = previewEntry(needle, 60);
    if (hits.length === 0) {
      const listing =
        entries.length === 0
          ? ' (there are no entries yet).'
          : `. Current entries:\n${listPreviews(entries)}`;
      throw new HermesError(
        'memory_no_match',
        `No ${LABELS[target].toLowerCase()} entry contains "${shown}"${listing}`,
      );
    }
    const exact = hits.filter((index) => entries[index] === needle);
    if (exact.length === 1) return exact[0]!;
    const candidates = listPreviews(hits.map((index) => entries[index]!));
    throw new HermesError(
      'memory_ambiguous',
      `"${shown}" appears in ${hits.length} ${LABELS[target].toLowerCase()} entries; give a longer part of the one you mean so it matches exactly one. Candidates:\n${candidates}`,
    );
  }

  /** Runs under the serializer of `path`, after a fresh read; the cache learns what was written. */
  async #save(path: string, entries: readonly string[]): Promise<void> {
    this.#cache.forget(path);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFileAtomic(path, serializeEntries(entries));
    this.#cache.wrote(path, entries);
  }

  #view(target: MemoryTarget, entries: readonly string[]): MemoryView {
    return { target, entries, used: entriesSize(entries), limit: this.limits[target] };
  }

  #change(target: MemoryTarget, entries: readonly string[], changed: boolean, message: string): MemoryChange {
    return { ...this.#view(target, entries), changed, message };
  }
}
