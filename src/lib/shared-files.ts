import { createHash } from 'node:crypto';
import { lstat, mkdir, realpath, rename, writeFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { HermesError } from '../errors/hermes-error.js';

/** What a shared file is: a spilled-over tool result, or a file sent in a chat. */
export type SharedFileKind = 'spillover' | 'attachment';

/**
 * Files a turn may need on any worker, kept in the shared database (DATABASE_URL) under the
 * path the agent was given: spilled-over tool results and chat attachments. A worker on another
 * machine, with an empty HERMES_HOME, gets its own copy with `localCopyOf` when a file tool is
 * asked for that path.
 */
export interface SharedFiles {
  /** Keeps `content` under `path` (replacing what was there) for `ttlMs` (undefined: kept). */
  put(path: string, kind: SharedFileKind, content: Uint8Array, ttlMs: number | undefined): Promise<void>;
  /** The content kept under `path`, or undefined (never stored, pruned, or expired). */
  get(path: string): Promise<Uint8Array | undefined>;
}

/** Where `localCopyOf` writes the copy of a shared file: `<home>/cache/shared-files/<hash>/<name>`. */
export function sharedCopyPath(home: string, path: string): string {
  const hash = createHash('sha256').update(path).digest('hex').slice(0, 24);
  return join(home, 'cache', 'shared-files', hash, basename(path));
}

/**
 * A local path holding the file the agent named: undefined when `path` exists on this machine
 * (use it as it is) or is not a shared file either. Otherwise the shared content is written to
 * `path` itself when it lies in this machine's `cache/spillover/` or `inbox/` (a worker whose
 * HERMES_HOME has the same path as the one that stored it), else to `sharedCopyPath(home, path)`,
 * and that path is returned.
 * A copy made before is reused.
 */
export async function localCopyOf(
  path: string,
  files: SharedFiles,
  home: string,
): Promise<string | undefined> {
  if (await exists(path)) return undefined;
  // The same path only where shared files live (spill-over cache, inbox): never anywhere else in
  // HERMES_HOME, whatever key a store holds.
  const sameHome = [join(home, 'cache', 'spillover'), join(home, 'inbox')].some((dir) =>
    path.startsWith(`${dir}/`),
  );
  const target = sameHome ? path : sharedCopyPath(home, path);
  if (target !== path && (await exists(target))) return target;
  const content = await files.get(path);
  if (content === undefined) return undefined;
  const dir = join(target, '..');
  // A symlinked folder on the way (one the agent made in inbox/, say) must not carry the copy
  // out of HERMES_HOME: the deepest folder that exists must really be where its name says.
  let existing = dir;
  while (!(await exists(existing)) && existing !== home) existing = join(existing, '..');
  if ((await realpath(existing)) !== join(await realpath(home), relative(home, existing))) {
    throw new HermesError(
      'store_failed',
      `${existing} is not a plain folder of HERMES_HOME; the shared copy is not written`,
    );
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Written aside and renamed: two tools copying at once never see half a file.
  const temp = `${target}.${process.pid}.${Date.now().toString(36)}.part`;
  await writeFile(temp, content, { mode: 0o600 });
  await rename(temp, target);
  return target;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
