import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SharedFiles } from '../lib/shared-files.js';

export const PREVIEW_CHARS = 1500;

export interface SpilloverOptions {
  /** Folder for spilled results ($HERMES_HOME/cache/spillover). */
  readonly dir: string;
  /** Files older than this are pruned, ms. */
  readonly ttlMs: number;
  readonly now?: () => number;
  /**
   * The shared database (DATABASE_URL): each spilled result is also stored there, up to
   * `maxBytes`, so read_file of its path works on any worker; a larger one keeps only its preview.
   */
  readonly shared?: { readonly files: SharedFiles; readonly maxBytes: number };
}

/**
 * Writes oversized tool results to files and replaces them with a notice the model can act on.
 * Pruning of old files runs at most every ten minutes, piggy-backed on a write.
 */
export class Spillover {
  readonly #dir: string;
  readonly #ttl: number;
  readonly #now: () => number;
  readonly #shared: SpilloverOptions['shared'];
  #lastPrune = 0;

  constructor(options: SpilloverOptions) {
    this.#dir = options.dir;
    this.#ttl = options.ttlMs;
    this.#now = options.now ?? Date.now;
    this.#shared = options.shared;
  }

  get dir(): string {
    return this.#dir;
  }

  async spill(toolName: string, content: string): Promise<{ notice: string; path?: string }> {
    const preview = makePreview(content);
    const shared = this.#shared;
    const bytes = shared === undefined ? undefined : Buffer.from(content, 'utf8');
    if (shared !== undefined && bytes !== undefined && bytes.byteLength > shared.maxBytes) {
      // Kept on this machine only, a later step on another worker could not read it: not kept.
      return {
        notice: `${preview}\n\n[Truncated: the result of ${toolName} was ${content.length} characters (${humanSize(bytes.byteLength)}), over the ${humanSize(shared.maxBytes)} kept for spilled results, so only this preview is shown and the rest is not kept. Narrow the call (a smaller range, a filter, fewer lines) to see more.]`,
      };
    }
    const path = join(
      this.#dir,
      `${toolName}-${this.#now().toString(36)}-${randomBytes(4).toString('hex')}.txt`,
    );
    try {
      await mkdir(this.#dir, { recursive: true, mode: 0o700 });
      await writeFile(path, content, { encoding: 'utf8', mode: 0o600 });
      if (shared !== undefined && bytes !== undefined) {
        await shared.files.put(path, 'spillover', bytes, this.#ttl);
      }
    } catch {
      return {
        notice: `${preview}\n\n[Truncated: the result of ${toolName} was ${content.length} characters and could not be saved, so only this preview is shown.]`,
      };
    }
    void this.#maybePrune();
    return { notice: spillNotice(toolName, content.length, path, preview), path };
  }

  /** Deletes spill files older than the TTL; returns how many were removed. */
  async prune(): Promise<number> {
    this.#lastPrune = this.#now();
    let names: string[];
    try {
      names = await readdir(this.#dir);
    } catch {
      return 0;
    }
    let removed = 0;
    const cutoff = this.#now() - this.#ttl;
    for (const name of names) {
      if (!name.endsWith('.txt')) continue;
      const file = join(this.#dir, name);
      try {
        const info = await stat(file);
        if (info.mtimeMs < cutoff) {
          await rm(file, { force: true });
          removed += 1;
        }
      } catch {
        // Raced with another pruner; nothing to do.
      }
    }
    return removed;
  }

  async #maybePrune(): Promise<void> {
    if (this.#now() - this.#lastPrune < 10 * 60_000) return;
    await this.prune();
  }
}

function makePreview(content: string): string {
  if (content.length <= PREVIEW_CHARS) return content;
  const head = content.slice(0, PREVIEW_CHARS);
  const cut = head.lastIndexOf('\n');
  return cut > PREVIEW_CHARS / 2 ? head.slice(0, cut) : head;
}

function humanSize(size: number): string {
  return size >= 1_048_576 ? `${(size / 1_048_576).toFixed(1)} MB` : `${(size / 1024).toFixed(1)} KB`;
}

function spillNotice(toolName: string, size: number, path: string, preview: string): string {
  const human = humanSize(size);
  return [
    '<spilled-result>',
    `The result of ${toolName} was too large to include (${size} characters, ${human}).`,
    `It was saved in full to: ${path}`,
    'Page through it with read_file using offset and limit (in lines), or search it with search_files.',
    'Do not repeat the original call to get the same data again: everything is in that file.',
    '',
    `Preview (first ${preview.length} characters):`,
    preview + (preview.length < size ? '\n…' : ''),
    '</spilled-result>',
  ].join('\n');
}
