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
/**
 * Bounds of the walk through protected directories: in all, per top-level place (so a huge
 * ~/.kube/cache cannot crowd out ~/.ssh or the credential files), and in depth.
 */
const MAX_ENTRIES = 5000;
const MAX_ENTRIES_PER_PLACE = 1000;
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
 * The device and inode of the files the table says must not be read (HERMES_HOME's `.env`,
 * `config.yaml`, `state.db*`; SSH private keys, credential files, `/etc/shadow`…) or of the
 * directories no file tool may write into (HERMES_HOME, ~/.ssh, credential directories…).
 *
 * A path can name a protected file without spelling it: a hard link (`ln ~/.hermes-gateway/.env
 * notes.txt`), a bind mount, `/proc/<pid>/root/…`. Comparing device+inode with these sets
 * catches such aliases.
 */
export interface InodeTable {
  /** The protected file or directory `info` is the same as, if any. */
  lookup(info: Pick<BigIntStats, 'dev' | 'ino'>): PathSensitivity | undefined;
}

const tableOf = (entries: Map<string, PathSensitivity>): InodeTable => ({
  lookup: (info) => entries.get(idOf(info)),
});

const hermesHomesOf = (roots: FileRoots): string[] => [
  ...new Set([roots.real.hermesHome, roots.given.hermesHome]),
];
const homesOf = (roots: FileRoots): string[] => [...new Set([roots.real.home, roots.given.home])];

/**
 * HERMES_HOME (and its sub-directories) and the table's sensitive directories below the home, by
 * device+inode: a few stats, cheap enough for every call. A directory seen again under another path (a bind mount) is
 * looked up here, and the file below it judged as if it were spelled under the original.
 */
export async function collectProtectedDirectories(roots: FileRoots): Promise<InodeTable> {
  const directories = new Map<string, PathSensitivity>();
  const candidates = [
    ...hermesHomesOf(roots),
    ...homesOf(roots).flatMap((home) => sensitiveHomeDirs().map((rel) => join(home, rel))),
  ];
  // HERMES_HOME's own sub-directories too (plugins/, cache/…): a bind mount of one alone.
  for (const hermesHome of hermesHomesOf(roots)) {
    const names = await readdir(hermesHome).catch(() => [] as string[]);
    candidates.push(...names.map((name) => join(hermesHome, name)));
  }
  for (const path of candidates) {
    const info = await statBig(path);
    if (info === undefined || !info.isDirectory() || directories.has(idOf(info))) continue;
    const match = pathSensitivities([path], roots).find((entry) => entry.write !== 'none');
    if (match !== undefined) directories.set(idOf(info), match);
  }
  return tableOf(directories);
}

/**
 * Every read-protected file, by device+inode: HERMES_HOME's secret entries, the files of the
 * table's sensitive home directories and credential files, and the system's secret files. This
 * walks directories (bounded: 5,000 entries in all, 1,000 per place, 6 levels), so callers load
 * it only when a file has more than one link.
 */
export async function collectProtectedFiles(roots: FileRoots): Promise<InodeTable> {
  const files = new Map<string, PathSensitivity>();
  const seenDirectories = new Set<string>();
  let budget = MAX_ENTRIES;
  let placeBudget = MAX_ENTRIES_PER_PLACE;

  const readSecret = (path: string): PathSensitivity | undefined =>
    pathSensitivities([path], roots).find((match) => match.read === 'dangerous');

  /** Adds `path` when it is a read-protected file; walks it when it is a directory that may hold one. */
  async function visit(path: string, depth: number): Promise<void> {
    if (budget <= 0 || placeBudget <= 0) return;
    budget -= 1;
    placeBudget -= 1;
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

  const places: string[] = [];
  for (const hermesHome of hermesHomesOf(roots)) {
    let names: string[] = [];
    try {
      names = await readdir(hermesHome);
    } catch {
      // No HERMES_HOME yet: nothing in it to protect.
    }
    // Only entries the table calls secret are walked: logs, caches and plugins are not.
    places.push(
      ...names.map((name) => join(hermesHome, name)).filter((path) => readSecret(path) !== undefined),
    );
  }
  for (const home of homesOf(roots)) {
    places.push(...sensitiveHomeFiles().map((rel) => join(home, rel)));
    places.push(...sensitiveHomeDirs().map((rel) => join(home, rel)));
  }
  places.push(...SYSTEM_SECRET_CANDIDATES);
  for (const place of places) {
    placeBudget = MAX_ENTRIES_PER_PLACE;
    await visit(place, 1);
  }
  return tableOf(files);
}
