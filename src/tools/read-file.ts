import { open } from 'node:fs/promises';
import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import { defineTool } from '../registry/define-tool.js';
import { approveRead } from './files/file-approval.js';
import { createFileGuard, neverRead } from './files/file-guard.js';
import {
  READ_DEFAULT_LIMIT,
  READ_MAX_COUNT_BYTES,
  READ_MAX_LIMIT,
  READ_MAX_LINE_CHARS,
} from './files/file-limits.js';
import { locateFile, statRegularFile } from './files/file-target.js';
import { formatBytes } from './files/format-bytes.js';
import { type LineWindow, readLineWindow } from './files/read-line-window.js';
import { sharedFileOrPath } from './files/shared-file-copy.js';
import { SNIFF_BYTES, sniffBinary } from './files/sniff-binary.js';

function renderWindow(window: LineWindow, offset: number, shown: string): string {
  const { lines, totalLines } = window;
  const last = lines.at(-1)?.number ?? offset - 1;
  const width = String(last).length;
  const body = lines.map((line) => `${String(line.number).padStart(width)}|${line.text}`).join('\n');
  const of = totalLines === undefined ? 'of a file too large to count' : `of ${totalLines}`;
  const more = totalLines === undefined || last < totalLines;
  if (!more && offset === 1) return body;
  if (!more) return `${body}\n… showing lines ${offset}-${last} ${of} (end of file)`;
  const why = window.cutByBudget ? ' (output size limit reached)' : '';
  return `${body}\n… showing lines ${offset}-${last} ${of}${why}; use offset=${last + 1} to continue reading ${shown}`;
}

export const readFileTool = defineTool({
  name: 'read_file',
  toolset: 'file',
  description:
    'Read a text file. Lines come back numbered as `N|text`. Long files are returned a page at a time: offset is the first line (1-based) and limit the number of lines (default 500, max 2000); a footer tells you the offset for the next page. Very long lines are shortened, and binary files are described instead of dumped. Relative paths resolve against the working directory; ~ is the home directory.',
  emoji: '📖',
  readOnly: true,
  maxResultChars: Number.POSITIVE_INFINITY,
  parameters: z.object({
    path: z.string().min(1).describe('File to read: relative to the working directory, absolute, or ~/…'),
    offset: z.number().int().min(0).default(1).describe('First line to return, 1-based (default 1).'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(READ_MAX_LIMIT)
      .default(READ_DEFAULT_LIMIT)
      .describe(`Number of lines to return (default ${READ_DEFAULT_LIMIT}, max ${READ_MAX_LIMIT}).`),
  }),
  handler: async (args, ctx) => {
    const config = ctx.services.config;
    // A spilled-over result or chat attachment stored by another machine: read this one's copy.
    const source = await sharedFileOrPath(args.path, ctx.cwd, ctx.services);
    const located = await locateFile(source.path, ctx.cwd);
    const target = source.copied ? { ...located, shown: args.path } : located;
    const guard = await createFileGuard(config);
    const spellings = [target.real, target.absolute];
    // The gateway's own secrets are refused by name before anything else, even when missing.
    const named = guard.readSensitivitiesSync(spellings);
    if (neverRead(named) !== undefined) await approveRead('read_file', target, named, guard, ctx);
    const info = await statRegularFile(target, ctx.cwd);
    const offset = Math.max(1, args.offset);
    const handle = await open(target.real, 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EACCES' || error.code === 'EPERM') {
        throw new HermesError('file_unsupported', `Permission denied: ${target.shown} cannot be read.`);
      }
      throw error;
    });
    try {
      // Checked on the opened file itself: a hard link, bind mount or a swap after the path
      // check cannot make this read a protected file.
      const opened = await handle.stat({ bigint: true });
      await approveRead('read_file', target, await guard.readSensitivities(spellings, opened), guard, ctx);
      // Sizes can lie (files under /proc report 0), so the sample read decides what is empty.
      const sample = Buffer.alloc(SNIFF_BYTES);
      const { bytesRead } = await handle.read(sample, 0, sample.length, 0);
      if (bytesRead === 0) return `(${target.shown} is empty: 0 bytes)`;
      const kind = sniffBinary(sample.subarray(0, bytesRead));
      if (kind !== undefined) {
        throw new HermesError(
          'file_unsupported',
          `${target.shown} is a binary file (${kind}, ${formatBytes(info.size)}); its bytes are not shown as text. For images use vision_analyze; to inspect other binaries use the terminal (e.g. file, xxd | head).`,
        );
      }
      const window = await readLineWindow(handle, {
        offset,
        limit: args.limit,
        maxLineChars: READ_MAX_LINE_CHARS,
        maxTotalChars: Math.max(READ_MAX_LINE_CHARS * 2, config.tools.max_result_chars - 500),
        maxCountBytes: READ_MAX_COUNT_BYTES,
        signal: ctx.signal,
      });
      if (window.lines.length === 0) {
        const total = window.totalLines ?? 0;
        if (total === 0) return `(${target.shown} is empty: no text after the byte-order mark)`;
        throw new HermesError(
          'file_bad_argument',
          `offset=${offset} is past the end of ${target.shown}, which has ${total} lines. Use an offset between 1 and ${total}.`,
        );
      }
      return renderWindow(window, offset, target.shown);
    } finally {
      await handle.close();
    }
  },
});
