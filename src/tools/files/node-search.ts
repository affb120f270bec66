import { open, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { compileGlob } from './compile-glob.js';
import { compileSearchRegex } from './compile-search-regex.js';
import { type ContentHit, PageCollector, type SearchPage, type SearchQuery } from './search-page.js';
import { walkFiles } from './walk-files.js';

/** Files larger than this are not searched by the built-in search. */
const MAX_SEARCHED_BYTES = 50 * 1024 * 1024;

/**
 * The text of a searchable file, or undefined: too large, binary, unreadable, or protected. The
 * protection check runs on the opened handle, so what is read is exactly what was checked.
 */
async function readSearchable(path: string, query: SearchQuery): Promise<string | undefined> {
  if (query.protectedFile(path)) return undefined;
  try {
    const handle = await open(path, 'r');
    try {
      const info = await handle.stat({ bigint: true });
      if (!info.isFile() || info.size > BigInt(MAX_SEARCHED_BYTES)) return undefined;
      if (query.protectedFile(path, info)) return undefined;
      const bytes = await handle.readFile();
      if (bytes.includes(0)) return undefined;
      const text = bytes.toString('utf8');
      return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

function candidates(query: SearchQuery): AsyncIterable<string> | readonly string[] {
  return query.rootIsFile ? [basename(query.root)] : walkFiles(query.root, query.signal);
}

/**
 * Content search without ripgrep: walks the tree (see walkFiles), skips binary files, tests the
 * regex against each line. Results and totals have the same shape and order as the ripgrep engine.
 */
export async function nodeSearchContent(query: SearchQuery): Promise<SearchPage<ContentHit>> {
  const regex = compileSearchRegex(query.pattern);
  const include = query.fileGlob === undefined || query.rootIsFile ? undefined : compileGlob(query.fileGlob);
  const base = query.rootIsFile ? dirname(query.root) : query.root;
  const collector = new PageCollector<ContentHit>(query.offset, query.limit);
  for await (const relative of candidates(query)) {
    if (include !== undefined && !include(relative)) continue;
    const file = join(base, relative);
    const text = await readSearchable(file, query);
    if (text === undefined) continue;
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    for (let index = 0; index < lines.length; index += 1) {
      const line = lines[index] ?? '';
      if (!regex.test(line)) continue;
      const hit = { file, line: index + 1, text: line.endsWith('\r') ? line.slice(0, -1) : line };
      if (!collector.add(hit, file)) return collector.page(false);
    }
    query.signal.throwIfAborted();
  }
  return collector.page(true);
}

/** File-name search without ripgrep: every walked file whose relative path matches the glob. */
export async function nodeListFiles(query: SearchQuery): Promise<SearchPage<string>> {
  const matches = compileGlob(query.pattern);
  const base = query.rootIsFile ? dirname(query.root) : query.root;
  const collector = new PageCollector<string>(query.offset, query.limit);
  for await (const relative of candidates(query)) {
    if (!matches(relative)) continue;
    const file = join(base, relative);
    if (query.protectedFile(file)) continue;
    const info = await stat(file, { bigint: true }).catch(() => undefined);
    if (info === undefined || query.protectedFile(file, info)) continue;
    if (!collector.add(file, file)) return collector.page(false);
  }
  return collector.page(true);
}
