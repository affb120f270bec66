import { open } from 'node:fs/promises';
import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import { defineTool } from '../registry/define-tool.js';
import { applyReplacements, renderHunks } from './files/apply-replacements.js';
import { describeNoMatch } from './files/describe-no-match.js';
import { approveWrite, contentDigest, planWrite, previewOf } from './files/file-approval.js';
import { createFileGuard, type FileGuard } from './files/file-guard.js';
import { PATCH_MAX_BYTES } from './files/file-limits.js';
import { type FileTarget, locateFile, statRegularFile } from './files/file-target.js';
import { formatBytes } from './files/format-bytes.js';
import { lineOfOffset, lineStarts } from './files/line-index.js';
import { resolveMatches } from './files/resolve-matches.js';
import { sniffBinary } from './files/sniff-binary.js';
import { writeFileAtomic } from './files/write-file-atomic.js';

const MAX_LINES_LISTED = 20;

/**
 * Reads the file to edit through one handle whose device+inode is checked first: a path swapped
 * for a link to a secret file after the checks by name cannot make patch echo that secret.
 */
async function readChecked(target: FileTarget, guard: FileGuard): Promise<Buffer> {
  const handle = await open(target.real, 'r');
  try {
    const opened = await handle.stat({ bigint: true });
    const matches = await guard.readSensitivities([target.real, target.absolute], opened);
    if (matches.length > 0) {
      throw new HermesError(
        'path_refused',
        `Refusing to patch ${target.shown}: it is the same file as a protected one, and patch shows parts of the file it edits.`,
      );
    }
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

export const patchTool = defineTool({
  name: 'patch',
  toolset: 'file',
  description:
    'Edit a file by replacing an exact piece of text. old_string must appear in the file exactly as written (whitespace and indentation included) and exactly once, unless replace_all is true; include enough surrounding lines to make it unique. Read the file first and copy the text from it (without the `N|` line-number prefixes). Returns a short diff of the change. To create a file or rewrite it entirely, use write_file.',
  emoji: '🔧',
  parameters: z.object({
    path: z.string().min(1).describe('File to edit: relative to the working directory, absolute, or ~/…'),
    old_string: z.string().describe('The exact text to replace.'),
    new_string: z.string().describe('The text to put in its place (may be empty to delete).'),
    replace_all: z
      .boolean()
      .default(false)
      .describe('Replace every occurrence instead of requiring exactly one (default false).'),
  }),
  handler: async (args, ctx) => {
    if (args.old_string === '') {
      throw new HermesError(
        'file_bad_argument',
        'old_string is empty. Give the exact text to replace; to create or rewrite a whole file use write_file.',
      );
    }
    if (args.old_string === args.new_string) {
      throw new HermesError(
        'file_bad_argument',
        'old_string and new_string are identical, so there is nothing to change.',
      );
    }
    const target = await locateFile(args.path, ctx.cwd);
    const guard = await createFileGuard(ctx.services.config);
    const plan = await planWrite('patch', target, guard);
    if (plan.readProtected) {
      // patch echoes the file (near matches, the diff): it would be a way to read a secret file.
      throw new HermesError(
        'path_refused',
        `Refusing to patch ${target.shown}: it holds secrets, and patch shows parts of the file it edits. Ask the user to edit it, or read it with read_file and write the whole new content with write_file (both ask the user first).`,
      );
    }
    const info = await statRegularFile(target, ctx.cwd, 'To create a new file use write_file.');
    if (info.size > PATCH_MAX_BYTES) {
      throw new HermesError(
        'file_unsupported',
        `${target.shown} is ${formatBytes(info.size)}, above the ${formatBytes(PATCH_MAX_BYTES)} patch limit; edit it with a command instead.`,
      );
    }
    const bytes = await readChecked(target, guard);
    const kind = sniffBinary(bytes.subarray(0, 8192));
    let text: string;
    try {
      if (kind !== undefined) throw new Error(kind);
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw new HermesError(
        'file_unsupported',
        `${target.shown} is not UTF-8 text (${kind ?? 'it contains invalid UTF-8'}); patch would corrupt it. Use the terminal for binary or other encodings.`,
      );
    }
    ctx.signal.throwIfAborted();

    const match = resolveMatches(text, args.old_string, args.new_string);
    if (match.offsets.length === 0) {
      throw new HermesError('patch_no_match', describeNoMatch(text, args.old_string, target.shown));
    }
    if (match.offsets.length > 1 && !args.replace_all) {
      const starts = lineStarts(text);
      const lines = match.offsets.map((offset) => lineOfOffset(starts, offset));
      const listed = lines.slice(0, MAX_LINES_LISTED).join(', ');
      const more = lines.length > MAX_LINES_LISTED ? `, … (${lines.length - MAX_LINES_LISTED} more)` : '';
      throw new HermesError(
        'patch_ambiguous',
        `old_string occurs ${lines.length} times in ${target.shown} (lines ${listed}${more}). Add surrounding lines to old_string so it matches exactly one place, or set replace_all=true to change every occurrence.`,
      );
    }

    const result = applyReplacements(text, match.offsets, match.needle, match.replacement);
    const count = match.offsets.length;
    const newBytes = Buffer.byteLength(result.text, 'utf8');
    const headline = `${count} replacement${count === 1 ? '' : 's'}; the file becomes ${newBytes} bytes (sha256 ${contentDigest(result.text)})`;
    await approveWrite(plan, { headline, body: previewOf(renderHunks(result.hunks)) }, guard, ctx);
    ctx.signal.throwIfAborted();
    await writeFileAtomic(target.real, result.text, info.mode & 0o7777);
    const adjusted = match.adjustedLineEndings ? ' (line endings adapted to the file’s CRLF/LF style)' : '';
    return `Patched ${target.shown}: ${count} replacement${count === 1 ? '' : 's'}${adjusted}.\n${renderHunks(result.hunks)}`;
  },
});
