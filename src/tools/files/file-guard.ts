import type { BigIntStats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SensitiveArea } from '../../approval/sensitive-paths.js';
import type { Config } from '../../config/config-schema.js';
import type { FileTarget } from './file-target.js';
import { hooksPathMatch } from './git-hooks-path.js';
import { collectProtectedInodes, type ProtectedInodes } from './protected-inodes.js';
import {
  type FileRoots,
  fileRootsOf,
  foldHome,
  type PathSensitivity,
  pathSensitivities,
} from './protected-paths.js';

/**
 * Areas whose content no file tool ever returns, whatever the approvals: the gateway's own
 * secrets and state, process environments and memory, raw disks. Other read-protected places
 * (SSH private keys, credential files, /etc/shadow) are asked about, like the terminal does.
 */
const NEVER_READ: ReadonlySet<SensitiveArea> = new Set(['hermes_secret', 'process_secrets', 'block_device']);

/**
 * What the file tools know about protected files for one tool call: the roots of the table of
 * sensitive locations (as configured and as resolved) and the device+inode of every protected
 * file and directory, so a hard link, bind mount or other alias of one is treated as the file
 * itself. Built once per call (a few dozen stats), never cached across calls: files come and go.
 */
export interface FileGuard {
  readonly roots: FileRoots;
  /** `path` with the home folded to `~`. */
  show(path: string): string;
  /**
   * Read-protected matches of a file: by every spelling in `paths` (as given, real) and, when
   * `info` (a stat or fstat of the very file) is given, by device+inode.
   */
  readSensitivities(paths: readonly string[], info?: Pick<BigIntStats, 'dev' | 'ino'>): PathSensitivity[];
  /** True when a search must not show this file's content (any read-protected match). */
  readBlocked(path: string, info?: Pick<BigIntStats, 'dev' | 'ino'>): boolean;
  /**
   * Write-protected matches of a target: by its spellings, by the inode of the file it would
   * replace, by the inode of each existing ancestor directory (a bind mount of HERMES_HOME or
   * ~/.ssh), and by the repository's `core.hooksPath`.
   */
  writeSensitivities(target: FileTarget): Promise<PathSensitivity[]>;
}

/** Whether a read of these matches is refused outright (true) or asked about (false). */
export function neverRead(matches: readonly PathSensitivity[]): PathSensitivity | undefined {
  return matches.find((match) => NEVER_READ.has(match.area));
}

/** Adds `alias` (found by inode) as a match of `path`, unless a match of its area is there already. */
function addAlias(found: PathSensitivity[], alias: PathSensitivity | undefined, path: string): void {
  if (alias === undefined || found.some((match) => match.area === alias.area)) return;
  found.push({ ...alias, aliasOf: alias.path, path });
}

export async function createFileGuard(config: Config, home?: string): Promise<FileGuard> {
  const roots = await fileRootsOf(config, home);
  const inodes: ProtectedInodes = await collectProtectedInodes(roots);

  function readSensitivities(
    paths: readonly string[],
    info?: Pick<BigIntStats, 'dev' | 'ino'>,
  ): PathSensitivity[] {
    const found = pathSensitivities(paths, roots).filter((match) => match.read === 'dangerous');
    if (info !== undefined) addAlias(found, inodes.fileAlias(info), paths[0] ?? '');
    return found;
  }

  async function writeSensitivities(target: FileTarget): Promise<PathSensitivity[]> {
    const found = pathSensitivities([target.absolute, target.real], roots).filter(
      (match) => match.write !== 'none',
    );
    const existing = await stat(target.real, { bigint: true }).catch(() => undefined);
    if (existing !== undefined) addAlias(found, inodes.fileAlias(existing), target.real);
    for (let dir = dirname(target.real); ; dir = dirname(dir)) {
      const info = await stat(dir, { bigint: true }).catch(() => undefined);
      if (info !== undefined) addAlias(found, inodes.directoryAlias(info), target.real);
      if (dirname(dir) === dir) break;
    }
    const hooks = await hooksPathMatch(target.real, roots.real.home);
    if (hooks !== undefined) found.push({ ...hooks, path: target.real });
    return found;
  }

  return {
    roots,
    show: (path) => foldHome(path, roots),
    readSensitivities,
    readBlocked: (path, info) => readSensitivities([path], info).length > 0,
    writeSensitivities,
  };
}
