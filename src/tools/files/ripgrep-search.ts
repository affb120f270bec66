import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { runRipgrep } from './run-ripgrep.js';
import { type ContentHit, PageCollector, type SearchPage, type SearchQuery } from './search-page.js';

const textOrBytes = z.union([z.object({ text: z.string() }), z.object({ bytes: z.string() })]);
const matchEvent = z.object({
  type: z.literal('match'),
  data: z.object({ path: textOrBytes, lines: textOrBytes, line_number: z.number().int().nullable() }),
});

const decode = (value: z.infer<typeof textOrBytes>): string =>
  'text' in value ? value.text : Buffer.from(value.bytes, 'base64').toString('utf8');

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

const BASE_ARGS = ['--sort=path', '--no-config', '--no-messages'];

/**
 * Whether ripgrep's results from `file` may be shown: ripgrep reads files itself, so each file
 * it reports is checked after the fact, by path and by device+inode (a hard link to a secret
 * file is dropped). A file that cannot be looked at any more is dropped too. Synchronous, once
 * per file, because results arrive in a synchronous stream callback.
 */
function showable(file: string, query: SearchQuery, seen: Map<string, boolean>): boolean {
  const known = seen.get(file);
  if (known !== undefined) return known;
  let ok = false;
  try {
    ok = !query.protectedFile(file) && !query.protectedFile(file, statSync(file, { bigint: true }));
  } catch {
    ok = false;
  }
  seen.set(file, ok);
  return ok;
}

/** Where ripgrep runs and what it is pointed at: directories are searched as `.` from inside. */
function placement(query: SearchQuery): { cwd: string; target: string } {
  return query.rootIsFile
    ? { cwd: dirname(query.root), target: query.root }
    : { cwd: query.root, target: '.' };
}

/** Content search through `rg --json`; undefined when ripgrep is not installed. */
export async function ripgrepSearchContent(
  command: string,
  query: SearchQuery,
): Promise<SearchPage<ContentHit> | undefined> {
  const { cwd, target } = placement(query);
  const args = ['--json', ...BASE_ARGS];
  if (query.fileGlob !== undefined) args.push(`--glob=${query.fileGlob}`);
  args.push(`--regexp=${query.pattern}`, '--', target);
  const collector = new PageCollector<ContentHit>(query.offset, query.limit);
  const seen = new Map<string, boolean>();
  let complete = true;
  const outcome = await runRipgrep(
    command,
    args,
    cwd,
    query.signal,
    (line) => {
      if (!line.startsWith('{"type":"match"')) return true;
      const event = matchEvent.safeParse(parseJson(line));
      if (!event.success) return true;
      const file = resolve(cwd, decode(event.data.data.path));
      if (!showable(file, query, seen)) return true;
      const text = decode(event.data.data.lines).replace(/\r?\n$/, '');
      const more = collector.add({ file, line: event.data.data.line_number ?? 0, text }, file);
      if (!more) complete = false;
      return more;
    },
    query.pattern,
  );
  return outcome === 'missing' ? undefined : collector.page(complete);
}

/** File-name search through `rg --files --glob`; undefined when ripgrep is not installed. */
export async function ripgrepListFiles(
  command: string,
  query: SearchQuery,
): Promise<SearchPage<string> | undefined> {
  const { cwd, target } = placement(query);
  const args = ['--files', ...BASE_ARGS, `--glob=${query.pattern}`, '--', target];
  const collector = new PageCollector<string>(query.offset, query.limit);
  const seen = new Map<string, boolean>();
  let complete = true;
  const outcome = await runRipgrep(
    command,
    args,
    cwd,
    query.signal,
    (line) => {
      if (line === '') return true;
      const file = resolve(cwd, line);
      if (!showable(file, query, seen)) return true;
      const more = collector.add(file, file);
      if (!more) complete = false;
      return more;
    },
    query.pattern,
  );
  return outcome === 'missing' ? undefined : collector.page(complete);
}
