import type { BigIntStats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { sensitiveHomeDirs, sensitiveHomeFiles } from '../../approval/sensitive-paths.js';
import { type FileRoots, type PathSensitivity, pathSensitivities } from './protected-paths.js';

/** System files whose content is secret; only looked at, each is still classified by the table. */
const SYSTEM_SECRET_CANDIDATES = [
  '/etc/shadow',
  '/etc/gshadow',
  '/etc/shadow-',
  '/etc/gshadow-',
  '/etc/sudoers',
  '/etc/sudoers.d',
];
/** Bounds of the walk through protected directories (a huge ~/.kube/cache must not stall a read). */
const MAX_ENTRIES = 5000;
const MAX_DEPTH = 6;

const idOf = (info: Pick<BigIntStats, 'dev' | 'ino'>): string => `${info.dev}:${info.ino}`;

async function statBig(path: string): Promise<BigIntStats | undefined> {
  try {
    return await stat(path, { bigint: true });
  } catch {
    return undefined;
  }
}

/**
 * The device and inode of every file the table says must not be read (HERMES_HOME's `.env`,
 * `config.yaml`, `state.db*`; SSH private keys, credential files, `/etc/shadow`…) and of the
 * directories no file tool may write into (HERMES_HOME, ~/.ssh, credential directories…).
 *
 * A path can name a protected file without spelling it: a hard link (`ln ~/.hermes-gateway/.env
 * notes.txt`), a bind mount, `/proc/<pid>/root/…`. Comparing device+inode with this set catches
 * every such alias, whatever the link count says.
 */
export interface ProtectedInodes {
  /** The protected file `info` is the same file as, if any. */
  fileAlias(info: Pick<BigIntStats, 'dev' | 'ino'>): PathSensitivity | undefined;
  /** The protected directory `info` is the same directory as, if any. */
  directoryAlias(info: Pick<BigIntStats, 'dev' | 'ino'>): PathSensitivity | undefined;
}

export async function collectProtectedInodes(roots: FileRoots): Promise<ProtectedInodes> {
  const files = new Map<string, PathSensitivity>();
  const directories = new Map<string, PathSensitivity>();
  const seenDirectories = new Set<string>();
  let budget = MAX_ENTRIES;

  const readSecret = (path: string): PathSensitivity | undefined =>
    pathSensitivities([path], roots).find((match) => match.read === 'dangerous');

  /** Adds `path` when it is a read-protected file; walks it when it is a directory that may hold one. */
  async function visit(path: string, depth: number): Promise<void> {
    if (budget <= 0) return;
    budget -= 1;
    const info = await statBig(path);
    if (info === undefined) return;
    if (info.isFile()) {
      const match = readSecret(path);
      if (match !== undefined && !files.has(idOf(info))) files.set(idOf(info), match);
      return;
    }
    if (!info.isDirectory() || depth >= MAX_DEPTH || seenDirectories.has(idOf(info))) return;
    if (readSecret(join(path, 'x')) === undefined && readSecret(path) === undefined) return;
    seenDirectories.add(idOf(info));
    let names: string[];
    try {
      names = await readdir(path);
    } catch {
      return;
    }
    for (const name of names.sort()) await visit(join(path, name), depth + 1);
  }

  /** Records a directory nothing may be written into, by its table entry. */
  async function protectDirectory(path: string): Promise<void> {
    const info = await statBig(path);
    if (info === undefined || !info.isDirectory()) return;
    const match = pathSensitivities([path], roots).find((entry) => entry.write !== 'none');
    if (match !== undefined && !directories.has(idOf(info))) directories.set(idOf(info), match);
  }

  const hermesHomes = [...new Set([roots.real.hermesHome, roots.given.hermesHome])];
  const homes = [...new Set([roots.real.home, roots.given.home])];
  for (const hermesHome of hermesHomes) {
    await protectDirectory(hermesHome);
    let names: string[] = [];
    try {
      names = await readdir(hermesHome);
    } catch {
      // No HERMES_HOME yet: nothing in it to protect.
    }
    // Only entries the table calls secret are walked: logs, caches and plugins are not.
    for (const name of names.sort()) {
      const path = join(hermesHome, name);
      if (readSecret(path) !== undefined) await visit(path, 1);
    }
  }
  for (const home of homes) {
    for (const rel of sensitiveHomeDirs()) {
      await protectDirectory(join(home, rel));
      await visit(join(home, rel), 1);
    }
    for (const rel of sensitiveHomeFiles()) await visit(join(home, rel), 1);
  }
  for (const path of SYSTEM_SECRET_CANDIDATES) await visit(path, 1);

  return {
    fileAlias: (info) => files.get(idOf(info)),
    directoryAlias: (info) => directories.get(idOf(info)),
  };
}
