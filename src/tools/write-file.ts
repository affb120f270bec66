import type { Stats } from 'node:fs';
import { lstat, mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import { defineTool } from '../registry/define-tool.js';
import { approveWrite, contentDigest, planWrite, previewOf } from './files/file-approval.js';
import { createFileGuard } from './files/file-guard.js';
import { WRITE_MAX_BYTES } from './files/file-limits.js';
import { locateFile } from './files/file-target.js';
import { formatBytes } from './files/format-bytes.js';
import { displayPath } from './files/resolve-tool-path.js';
import { writeFileAtomic } from './files/write-file-atomic.js';

async function statIfExists(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** mkdir -p, with a clear message when a path component is an existing file. */
async function ensureParent(directory: string, cwd: string): Promise<void> {
  try {
    await mkdir(directory, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOTDIR') throw error;
    let blocker = directory;
    while (dirname(blocker) !== blocker && !(await lstat(blocker).catch(() => undefined)))
      blocker = dirname(blocker);
    throw new HermesError(
      'file_unsupported',
      `Cannot create directory ${displayPath(directory, cwd)}: ${displayPath(blocker, cwd)} exists and is not a directory.`,
    );
  }
}

export const writeFileTool = defineTool({
  name: 'write_file',
  toolset: 'file',
  description:
    'Write a whole file: creates it (and any missing parent directories) or replaces its entire content. For a small change to an existing file use patch instead. Relative paths resolve against the working directory; ~ is the home directory.',
  emoji: '✍️',
  parameters: z.object({
    path: z.string().min(1).describe('File to write: relative to the working directory, absolute, or ~/…'),
    content: z.string().describe('The complete new content of the file.'),
  }),
  handler: async (args, ctx) => {
    const target = await locateFile(args.path, ctx.cwd);
    const guard = await createFileGuard(ctx.services.config);
    const plan = await planWrite('write_file', target, guard);
    const bytes = Buffer.byteLength(args.content, 'utf8');
    if (bytes > WRITE_MAX_BYTES) {
      throw new HermesError(
        'file_bad_argument',
        `content is ${formatBytes(bytes)}, above the ${formatBytes(WRITE_MAX_BYTES)} write_file limit. Write the file in smaller pieces or generate it with a command.`,
      );
    }
    const existing = await statIfExists(target.real);
    if (existing?.isDirectory()) {
      throw new HermesError(
        'file_unsupported',
        `${target.shown} is a directory; give a file path inside it.`,
      );
    }
    if (existing !== undefined && !existing.isFile()) {
      throw new HermesError(
        'file_unsupported',
        `${target.shown} is not a regular file (device, socket or pipe).`,
      );
    }
    const digest = contentDigest(args.content);
    const headline =
      existing === undefined
        ? `creates it with ${bytes} bytes (sha256 ${digest})`
        : `replaces its ${existing.size} bytes with ${bytes} bytes (sha256 ${digest})`;
    await approveWrite(plan, { headline, body: previewOf(args.content) }, guard, ctx);
    ctx.signal.throwIfAborted();
    await ensureParent(dirname(target.real), ctx.cwd);
    await writeFileAtomic(
      target.real,
      args.content,
      existing === undefined ? undefined : existing.mode & 0o7777,
    );
    return existing === undefined
      ? `Created ${target.shown} (${bytes} bytes).`
      : `Overwrote ${target.shown} (${bytes} bytes; was ${existing.size} bytes).`;
  },
});
