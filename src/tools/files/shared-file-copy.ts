import { HermesError } from '../../errors/hermes-error.js';
import { localCopyOf, type SharedFiles } from '../../lib/shared-files.js';
import type { ToolServices } from '../../registry/tool-services.js';
import { resolveToolPath } from './resolve-tool-path.js';

/**
 * Optional service, added to ToolServices by declaration merging: the shared store of spilled-over
 * results and chat attachments (DATABASE_URL). Without it, file tools read this machine's disk only.
 */
declare module '../../registry/tool-services.js' {
  interface ToolServices {
    readonly sharedFiles?: SharedFiles;
  }
}

/**
 * The path a file tool should open for `path`: `path` itself, or — when it names a spilled-over
 * result or chat attachment that another machine stored in the shared database and this machine
 * does not have — the local copy made of it (absolute). `copied` tells the tool to show the
 * path as the model gave it, so the model keeps using a name every worker can resolve.
 */
export async function sharedFileOrPath(
  path: string,
  cwd: string,
  services: ToolServices,
): Promise<{ readonly path: string; readonly copied: boolean }> {
  const files = services.sharedFiles;
  if (files === undefined) return { path, copied: false };
  let copy: string | undefined;
  try {
    copy = await localCopyOf(resolveToolPath(path, cwd), files, services.config.home);
  } catch (error) {
    services.logger.warn({ err: (error as Error).message }, 'shared file not fetched');
    throw new HermesError(
      'store_failed',
      `${path} is not on this machine and could not be fetched from the shared database; try again shortly.`,
      { cause: error },
    );
  }
  return copy === undefined ? { path, copied: false } : { path: copy, copied: true };
}
