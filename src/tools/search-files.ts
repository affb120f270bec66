import type { Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import { defineTool } from '../registry/define-tool.js';
import { neverReadError } from './files/file-approval.js';
import { createFileGuard, type FileGuard } from './files/file-guard.js';
import { SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, SEARCH_TIMEOUT_MS } from './files/file-limits.js';
import type {} from './files/file-search-services.js';
import { type FileTarget, locateFile } from './files/file-target.js';
import { missingPathError } from './files/missing-path-error.js';
import { type RenderSearchOptions, renderContentPage, renderFilePage } from './files/render-search.js';
import { listFiles, searchContent } from './files/search-engines.js';
import type { SearchQuery } from './files/search-page.js';
import { sharedFileOrPath } from './files/shared-file-copy.js';
import { SNIFF_BYTES, sniffBinary } from './files/sniff-binary.js';

async function statSearchRoot(real: string, absolute: string, cwd: string): Promise<Stats> {
  try {
    return await stat(real);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw await missingPathError(absolute, cwd);
    throw error;
  }
}

/** A single file named as the search root must be text: ripgrep would otherwise show binary bytes. */
async function assertTextFile(real: string, shown: string): Promise<void> {
  const handle = await open(real, 'r');
  try {
    const sample = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(sample, 0, sample.length, 0);
    const kind = sniffBinary(sample.subarray(0, bytesRead));
    if (kind !== undefined) {
      throw new HermesError(
        'file_unsupported',
        `${shown} is a binary file (${kind}); search_files only searches text.`,
      );
    }
  } finally {
    await handle.close();
  }
}

/**
 * A search root that is itself protected (a secret file, a credentials directory) is refused:
 * search_files never asks for approval, and shows nothing of protected files. For the gateway's
 * own secrets the refusal says so; for other secret files it points to read_file, which asks.
 */
async function assertSearchable(target: FileTarget, guard: FileGuard): Promise<void> {
  const spellings = [target.real, target.absolute];
  const info = await stat(target.real, { bigint: true }).catch(() => undefined);
  const matches = await guard.readSensitivities(spellings, info);
  if (matches.length === 0) return;
  const refusal = neverReadError(target, matches, guard);
  if (refusal !== undefined) throw refusal;
  throw new HermesError(
    'path_refused',
    `Refusing to search ${target.shown}: it holds secrets (${matches.map((m) => m.what).join('; ')}). search_files never shows protected files; read_file asks the user before reading one.`,
  );
}

export const searchFilesTool = defineTool({
  name: 'search_files',
  toolset: 'file',
  description:
    "Search inside files or find files by name. target='content' (default): `pattern` is a regular expression matched line by line; results are `path:line:text`, optionally narrowed with file_glob (e.g. '*.ts') and with `context` lines around each match. target='files': `pattern` is a glob over file names ('*.md') or relative paths ('src/**/*.test.ts'). Hidden files are skipped (and git-ignored ones when ripgrep is installed). Results come `limit` at a time with the total count; use offset to page.",
  emoji: '🔎',
  readOnly: true,
  parameters: z.object({
    pattern: z.string().min(1).describe("Regex for target='content'; glob for target='files'."),
    target: z
      .enum(['content', 'files'])
      .default('content')
      .describe("'content' searches inside files, 'files' matches file names (default 'content')."),
    path: z
      .string()
      .min(1)
      .default('.')
      .describe('Directory (or file) to search; default the working directory.'),
    file_glob: z
      .string()
      .min(1)
      .optional()
      .describe("Only search files matching this glob, e.g. '*.py' (target='content' only)."),
    limit: z
      .number()
      .int()
      .min(1)
      .max(SEARCH_MAX_LIMIT)
      .default(SEARCH_DEFAULT_LIMIT)
      .describe(`Results per page (default ${SEARCH_DEFAULT_LIMIT}).`),
    offset: z.number().int().min(0).default(0).describe('Results to skip, for paging (default 0).'),
    context: z
      .number()
      .int()
      .min(0)
      .max(10)
      .optional()
      .describe('Lines of context around each match (content only).'),
  }),
  handler: async (args, ctx) => {
    const source = await sharedFileOrPath(args.path, ctx.cwd, ctx.services);
    const target = await locateFile(source.path, ctx.cwd);
    const guard = await createFileGuard(ctx.services.config);
    await assertSearchable(target, guard);
    // Loaded up front: the search checks files synchronously (ripgrep's results arrive in a stream).
    await guard.loadLinks();
    const protectedFile: SearchQuery['protectedFile'] = (file, stats) =>
      guard.readSensitivitiesSync([file], stats).length > 0;
    const info = await statSearchRoot(target.real, target.absolute, ctx.cwd);
    if (!info.isDirectory() && !info.isFile()) {
      throw new HermesError('file_unsupported', `${target.shown} is neither a directory nor a regular file.`);
    }
    if (info.isFile() && args.target === 'content') await assertTextFile(target.real, target.shown);
    const timeout = AbortSignal.timeout(SEARCH_TIMEOUT_MS);
    const query: SearchQuery = {
      root: target.real,
      rootIsFile: info.isFile(),
      pattern: args.pattern,
      fileGlob: args.target === 'content' ? args.file_glob : undefined,
      offset: args.offset,
      limit: args.limit,
      signal: AbortSignal.any([ctx.signal, timeout]),
      protectedFile,
    };
    const options: RenderSearchOptions = {
      cwd: ctx.cwd,
      absoluteRoot: target.absolute,
      realRoot: target.real,
      rootIsFile: query.rootIsFile,
      pattern: args.pattern,
      fileGlob: query.fileGlob,
      offset: args.offset,
      context: args.target === 'content' ? (args.context ?? 0) : 0,
      protectedFile,
    };
    const ripgrep = ctx.services.ripgrepCommand ?? 'rg';
    try {
      if (args.target === 'files') {
        const { page, engine } = await listFiles(query, ripgrep);
        ctx.services.logger.debug({ engine, total: page.total }, 'search_files: file-name search');
        return renderFilePage(page, options);
      }
      const { page, engine } = await searchContent(query, ripgrep);
      ctx.services.logger.debug({ engine, total: page.total }, 'search_files: content search');
      return await renderContentPage(page, options);
    } catch (error) {
      if (timeout.aborted && !ctx.signal.aborted) {
        throw new HermesError(
          'search_failed',
          `search_files stopped after ${SEARCH_TIMEOUT_MS / 1000} s. Search a smaller directory (path), narrow file_glob, or use a more specific pattern.`,
        );
      }
      throw error;
    }
  },
});
