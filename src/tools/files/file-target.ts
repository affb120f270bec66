import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { HermesError } from '../../errors/hermes-error.js';
import { missingPathError } from './missing-path-error.js';
import { realPathOf } from './protected-paths.js';
import { displayPath, resolveToolPath } from './resolve-tool-path.js';

/** A path argument, resolved: as given (absolute), as the OS will touch it, and as shown back. */
export interface FileTarget {
  readonly absolute: string;
  readonly real: string;
  readonly shown: string;
}

export async function locateFile(path: string, cwd: string): Promise<FileTarget> {
  const absolute = resolveToolPath(path, cwd);
  return { absolute, real: await realPathOf(absolute), shown: displayPath(absolute, cwd) };
}

/**
 * Stats a file that must exist and be a regular file. A missing file gets near-name suggestions
 * (`missingHint` is appended, e.g. "use write_file to create it"); a directory points to
 * search_files; sockets, FIFOs and devices are refused because reading them may never end.
 */
export async function statRegularFile(target: FileTarget, cwd: string, missingHint = ''): Promise<Stats> {
  let info: Stats;
  try {
    info = await stat(target.real);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw await missingPathError(target.absolute, cwd, missingHint);
    if (code === 'EACCES' || code === 'EPERM') {
      throw new HermesError('file_unsupported', `Permission denied: ${target.shown}.`);
    }
    throw error;
  }
  if (info.isDirectory()) {
    throw new HermesError(
      'file_unsupported',
      `${target.shown} is a directory, not a file. To see what is in it, use search_files with target='files', pattern='*' and path='${target.shown}'.`,
    );
  }
  if (!info.isFile()) {
    throw new HermesError(
      'file_unsupported',
      `${target.shown} is not a regular file (device, socket or pipe); file tools only handle regular files.`,
    );
  }
  return info;
}
