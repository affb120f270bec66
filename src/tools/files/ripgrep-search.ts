import { dirname, join } from 'node:path';
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
      const file = join(cwd, decode(event.data.data.path));
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
  let complete = true;
  const outcome = await runRipgrep(
    command,
    args,
    cwd,
    query.signal,
    (line) => {
      if (line === '') return true;
      const file = join(cwd, line);
      const more = collector.add(file, file);
      if (!more) complete = false;
      return more;
    },
    query.pattern,
  );
  return outcome === 'missing' ? undefined : collector.page(complete);
}
