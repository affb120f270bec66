import { randomBytes } from 'node:crypto';
import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces `target` in one step: the data goes to a temporary file in the same directory, is
 * flushed, and is renamed over the target, so readers see the old file or the new one, never a
 * half-written one. `mode` (permission bits) is applied exactly when given — pass the old file's
 * mode to keep it; new files get the usual 0666 minus umask.
 */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  mode?: number,
): Promise<void> {
  const temp = join(
    dirname(target),
    `.${basename(target).slice(0, 100)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  let handle: FileHandle | undefined;
  try {
    handle = await open(temp, 'wx', mode ?? 0o666);
    await handle.writeFile(data);
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, target);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
}
