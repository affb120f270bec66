import { type BigIntStats, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { SensitiveArea } from '../../approval/sensitive-paths.js';
import type { Config } from '../../config/config-schema.js';
import type { FileTarget } from './file-target.js';
import { hooksPathMatch } from './git-hooks-path.js';
import { collectProtectedDirectories, collectProtectedFiles, type InodeTable } from './protected-inodes.js';
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

type Identity = Pick<BigIntStats, 'dev' | 'ino' | 'nlink'>;

/**
 * What the file tools know about protected files for one tool call: the roots of the table of
 * sensitive locations (as configured and as resolved), the device+inode of the protected
 * directories (HERMES_HOME, ~/.ssh, credential directories: a bind mount of one is seen through
 * its parent directories) and, loaded only when a file has more than one link, the device+inode
 * of every read-protected file (a hard link is the same file under another name). Built per
 * call, never cached across calls: files come and go.
 */
export interface FileGuard {
  readonly roots: FileRoots;
  /** `path` with the home folded to `~`. */
  show(path: string): string;
  /** Loads the inodes of the protected files; `readSensitivitiesSync` needs it for linked files. */
  loadLinks(): Promise<void>;
  /**
   * Read-protected matches of a file: by every spelling in `paths` (the real path first, then
   * e.g. the path as given), by the directories above the real path (a bind mount of a
   * protected directory), and by device+inode when `info` (a stat or fstat of the very file)
   * is given.
   */
  readSensitivities(paths: readonly string[], info?: Identity): Promise<PathSensitivity[]>;
  /** The same, synchronous; after `loadLinks()`, else a file with several links counts as protected. */
  readSensitivitiesSync(paths: readonly string[], info?: Identity): PathSensitivity[];
  /**
   * Write-protected matches of a target: by its spellings, by the inode of the file it would
   * replace (when it has several links), by the directories above it (a bind mount of
   * HERMES_HOME or ~/.ssh), and by `core.hooksPath`.
   */
  writeSensitivities(target: FileTarget): Promise<PathSensitivity[]>;
}

/** The match that makes a read refused outright (not asked about), if any. */
export function neverRead(matches: readonly PathSensitivity[]): PathSensitivity | undefined {
  return matches.find((match) => NEVER_READ.has(match.area));
}

/** Adds `alias` (found by inode) as a match of `path`, unless a match of its area is there already. */
function addAlias(found: PathSensitivity[], alias: PathSensitivity | undefined, path: string): void {
  if (alias === undefined || found.some((match) => match.area === alias.area)) return;
  found.push({ ...alias, aliasOf: alias.path, path });
}

const UNCHECKED_LINK: PathSensitivity = {
  area: 'hermes_secret',
  what: 'a file with several links that could not be compared with the protected files',
  write: 'hardline',
  read: 'dangerous',
  path: '',
};

export async function createFileGuard(config: Config, home?: string): Promise<FileGuard> {
  const roots = await fileRootsOf(config, home);
  const directories: InodeTable = await collectProtectedDirectories(roots);
  let files: InodeTable | undefined;
  /** Directory path → the protected directory it is an alias of (null: none), for this call. */
  const directoryAliases = new Map<string, PathSensitivity | null>();

  function directoryAlias(dir: string): PathSensitivity | undefined {
    const known = directoryAliases.get(dir);
    if (known !== undefined) return known ?? undefined;
    let alias: PathSensitivity | undefined;
    try {
      alias = directories.lookup(statSync(dir, { bigint: true }));
    } catch {
      alias = undefined;
    }
    directoryAliases.set(dir, alias ?? null);
    return alias;
  }

  /** The file spelled under the protected directory one of its ancestors is a bind mount of. */
  function respelled(real: string): string | undefined {
    for (let dir = dirname(real); ; dir = dirname(dir)) {
      const alias = directoryAlias(dir);
      if (alias !== undefined) return alias.path === dir ? undefined : join(alias.path, relative(dir, real));
      if (dirname(dir) === dir) return undefined;
    }
  }

  function readSensitivitiesSync(paths: readonly string[], info?: Identity): PathSensitivity[] {
    const real = paths[0] ?? '';
    const found = pathSensitivities(paths, roots).filter((match) => match.read === 'dangerous');
    const original = respelled(real);
    if (original !== undefined) {
      const [match] = pathSensitivities([original], roots).filter((entry) => entry.read === 'dangerous');
      addAlias(found, match === undefined ? undefined : { ...match, path: original }, real);
    }
    if (info !== undefined && info.nlink > 1n) {
      if (files === undefined) addAlias(found, UNCHECKED_LINK, real);
      else addAlias(found, files.lookup(info), real);
    }
    return found;
  }

  async function loadLinks(): Promise<void> {
    files ??= await collectProtectedFiles(roots);
  }

  async function writeSensitivities(target: FileTarget): Promise<PathSensitivity[]> {
    const found = pathSensitivities([target.absolute, target.real], roots).filter(
      (match) => match.write !== 'none',
    );
    const existing = await stat(target.real, { bigint: true }).catch(() => undefined);
    if (existing !== undefined && existing.nlink > 1n) {
      await loadLinks();
      addAlias(found, files?.lookup(existing), target.real);
    }
    const original = respelled(target.real);
    if (original !== undefined) {
      const [match] = pathSensitivities([original], roots).filter((entry) => entry.write !== 'none');
      addAlias(found, match === undefined ? undefined : { ...match, path: original }, target.real);
    }
    const hooks = await hooksPathMatch(target.real, roots.real.home);
    if (hooks !== undefined) found.push({ ...hooks, path: target.real });
    return found;
  }

  return {
    roots,
    show: (path) => foldHome(path, roots),
    loadLinks,
    async readSensitivities(paths, info) {
      if (info !== undefined && info.nlink > 1n) await loadLinks();
      return readSensitivitiesSync(paths, info);
    },
    readSensitivitiesSync,
    writeSensitivities,
  };
}
