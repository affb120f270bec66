import { open } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { HermesError } from '../../errors/hermes-error.js';
import { displayPath } from './resolve-tool-path.js';
import type { ContentHit, SearchPage, SearchQuery } from './search-page.js';

const MAX_TEXT_CHARS = 300;
const MAX_CONTEXT_FILE_BYTES = 20 * 1024 * 1024;

export interface RenderSearchOptions {
  readonly cwd: string;
  /** The search root as the model named it (absolute) and as it resolved on disk. */
  readonly absoluteRoot: string;
  readonly realRoot: string;
  readonly rootIsFile: boolean;
  readonly pattern: string;
  readonly fileGlob: string | undefined;
  readonly offset: number;
  /** Lines shown before and after each match (content searches). */
  readonly context: number;
  /** The search's protection check, applied again to the opened file read for context lines. */
  readonly protectedFile: SearchQuery['protectedFile'];
}

const clip = (text: string): string =>
  text.length > MAX_TEXT_CHARS ? `${text.slice(0, MAX_TEXT_CHARS)} …[line truncated]` : text;
const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** Maps an engine result (under the real root) back under the root the model named. */
function shownFile(file: string, options: RenderSearchOptions): string {
  const absolute = options.rootIsFile
    ? options.absoluteRoot
    : join(options.absoluteRoot, relative(options.realRoot, file));
  return displayPath(absolute, options.cwd);
}

function where(options: RenderSearchOptions): string {
  const shown = displayPath(options.absoluteRoot, options.cwd);
  return shown === '.' ? 'the working directory' : shown;
}

/** The whole answer when there is nothing to show; throws when offset skipped everything. */
function emptyAnswer<T>(page: SearchPage<T>, options: RenderSearchOptions, none: string): string | undefined {
  const glob = options.fileGlob === undefined ? '' : ` (files matching ${JSON.stringify(options.fileGlob)})`;
  if (page.total === 0) return `${none} in ${where(options)}${glob}.`;
  if (page.items.length === 0) {
    throw new HermesError(
      'file_bad_argument',
      `offset=${options.offset} is past the last result: there are ${page.complete ? '' : 'at least '}${page.total}. Use a smaller offset.`,
    );
  }
  return undefined;
}

function summary<T>(page: SearchPage<T>, options: RenderSearchOptions, found: string): string {
  const first = options.offset + 1;
  const last = options.offset + page.items.length;
  const partial = first > 1 || last < page.total ? ` (showing ${first}-${last})` : '';
  return `${found} in ${where(options)}${partial}:`;
}

function footer<T>(page: SearchPage<T>, options: RenderSearchOptions): string {
  const next = options.offset + page.items.length;
  if (next < page.total) return `\n… more results; use offset=${next} to see the next page.`;
  if (!page.complete)
    return `\n… counting stopped at ${page.total}; narrow the pattern or path to see the rest.`;
  return '';
}

/** The lines of a file for context, read through a handle that passed the protection check. */
async function fileLines(path: string, options: RenderSearchOptions): Promise<readonly string[] | undefined> {
  try {
    const handle = await open(path, 'r');
    try {
      const info = await handle.stat({ bigint: true });
      if (info.size > BigInt(MAX_CONTEXT_FILE_BYTES) || options.protectedFile(path, info)) return undefined;
      const lines = (await handle.readFile('utf8')).replace(/^\uFEFF/, '').split('\n');
      if (lines.at(-1) === '') lines.pop();
      return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/** Match lines as `path:N:text`; with context, neighbours as `path-N-text` and `--` between blocks. */
async function contentLines(items: readonly ContentHit[], options: RenderSearchOptions): Promise<string[]> {
  if (options.context <= 0)
    return items.map((hit) => `${shownFile(hit.file, options)}:${hit.line}:${clip(hit.text)}`);
  const out: string[] = [];
  for (let start = 0; start < items.length; ) {
    const file = items[start]?.file ?? '';
    let end = start;
    while (end < items.length && items[end]?.file === file) end += 1;
    const hits = items.slice(start, end);
    start = end;
    const shown = shownFile(file, options);
    const lines = await fileLines(file, options);
    const matched = new Map(hits.map((hit) => [hit.line, hit.text]));
    const count = lines?.length ?? 0;
    const wanted = new Set<number>();
    for (const hit of hits) {
      for (
        let number = Math.max(1, hit.line - options.context);
        number <= hit.line + options.context;
        number += 1
      ) {
        if (number === hit.line || number <= count) wanted.add(number);
      }
    }
    let previous: number | undefined;
    for (const number of [...wanted].sort((a, b) => a - b)) {
      if (out.length > 0 && (previous === undefined || number !== previous + 1)) out.push('--');
      const text = matched.get(number);
      out.push(
        text === undefined
          ? `${shown}-${number}-${clip(lines?.[number - 1] ?? '')}`
          : `${shown}:${number}:${clip(text)}`,
      );
      previous = number;
    }
  }
  return out;
}

export async function renderContentPage(
  page: SearchPage<ContentHit>,
  options: RenderSearchOptions,
): Promise<string> {
  const pattern = JSON.stringify(options.pattern);
  const empty = emptyAnswer(page, options, `No matches for ${pattern}`);
  if (empty !== undefined) return empty;
  const more = page.complete ? '' : '+';
  const found = `Found ${plural(page.total, 'matching line')}${more} in ${plural(page.files, 'file')}${more} for ${pattern}`;
  const body = await contentLines(page.items, options);
  return `${summary(page, options, found)}\n${body.join('\n')}${footer(page, options)}`;
}

export function renderFilePage(page: SearchPage<string>, options: RenderSearchOptions): string {
  const pattern = JSON.stringify(options.pattern);
  const empty = emptyAnswer(page, options, `No files match ${pattern}`);
  if (empty !== undefined) return empty;
  const found = `Found ${plural(page.total, 'file')}${page.complete ? '' : '+'} matching ${pattern}`;
  const body = page.items.map((file) => shownFile(file, options));
  return `${summary(page, options, found)}\n${body.join('\n')}${footer(page, options)}`;
}
