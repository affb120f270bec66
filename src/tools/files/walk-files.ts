import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Directory names the built-in search never descends into (besides hidden ones). */
const SKIPPED_DIRECTORIES = new Set(['node_modules']);

/**
 * Yields the regular files under `root` as `/`-separated paths relative to it, depth first with
 * each directory's entries sorted by name — the order `rg --sort=path` uses. Hidden entries
 * (dot-names) and node_modules are skipped, symlinks are not followed, unreadable directories
 * are passed over silently.
 */
export async function* walkFiles(root: string, signal: AbortSignal, relative = ''): AsyncGenerator<string> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(relative === '' ? root : join(root, relative), { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    signal.throwIfAborted();
    if (entry.name.startsWith('.') || SKIPPED_DIRECTORIES.has(entry.name)) continue;
    const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) yield* walkFiles(root, signal, path);
    else if (entry.isFile()) yield path;
  }
}
