import { readlink, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import {
  classifySensitivePath,
  type SensitiveMatch,
  type SensitiveRoots,
} from '../../approval/sensitive-paths.js';
import type { Config } from '../../config/config-schema.js';

const MAX_LINK_DEPTH = 40;

/**
 * The path the OS would really touch: symlinks are followed, `..` is collapsed, and for a path
 * that does not exist yet the deepest existing ancestor is resolved and the rest appended. A
 * dangling symlink resolves to where it points, since writing through it would create that file.
 */
export async function realPathOf(path: string, depth = 0): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    // Does not exist (or cannot be resolved): look at the link itself, then at the parent.
  }
  if (depth < MAX_LINK_DEPTH) {
    try {
      const target = await readlink(path);
      return await realPathOf(resolve(dirname(path), target), depth + 1);
    } catch {
      // Not a symlink.
    }
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return join(await realPathOf(parent, depth), basename(path));
}

/**
 * The roots of the sensitive-location table as configured and as they resolve on disk: a home
 * or HERMES_HOME reached through a symlink (`/tmp` → `/private/tmp`, a dotfiles checkout) is
 * matched under both spellings.
 */
export interface FileRoots {
  readonly given: SensitiveRoots;
  readonly real: SensitiveRoots;
}

export async function fileRootsOf(config: Config, home = homedir()): Promise<FileRoots> {
  const given = { home, hermesHome: config.home };
  const [realHome, realHermesHome] = await Promise.all([realPathOf(home), realPathOf(config.home)]);
  return { given, real: { home: realHome, hermesHome: realHermesHome } };
}

/** The location, from the table, of a file or directory; with the spelling that matched. */
export interface PathSensitivity extends SensitiveMatch {
  /** The path that matched (one of the spellings given). */
  readonly path: string;
  /** Set when the match is not by the path itself but by being the same file as `aliasOf`. */
  readonly aliasOf?: string;
}

/**
 * Every table match of `paths` (the path as given, its real path…) under both spellings of the
 * roots, one per area. Pure string work: links are followed by the caller (`realPathOf`) and
 * compared by inode elsewhere (`ProtectedInodes`).
 */
export function pathSensitivities(paths: readonly string[], roots: FileRoots): PathSensitivity[] {
  const found = new Map<string, PathSensitivity>();
  for (const path of paths) {
    for (const base of [roots.real, roots.given]) {
      const match = classifySensitivePath(path, base);
      if (match !== undefined && !found.has(match.area)) found.set(match.area, { ...match, path });
    }
  }
  return [...found.values()];
}

/** `path` with the home directory shown as `~` (for messages, prompts and approval keys). */
export function foldHome(path: string, roots: FileRoots): string {
  for (const home of [roots.real.home, roots.given.home]) {
    if (home === '/' || home === '') continue;
    if (path === home) return '~';
    if (path.startsWith(`${home}/`)) return `~${path.slice(home.length)}`;
  }
  return path;
}
