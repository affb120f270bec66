import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { HermesError } from '../../errors/hermes-error.js';
import { displayPath } from './resolve-tool-path.js';
import { editDistance } from './text-similarity.js';

const MAX_SUGGESTIONS = 5;

function stem(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot > 0 ? name.slice(0, dot) : name).toLowerCase();
}

/** Ranks directory entries by how likely the model meant them instead of `wanted`. */
export function rankNearNames(wanted: string, entries: readonly string[]): string[] {
  const target = wanted.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  for (const name of entries) {
    const lower = name.toLowerCase();
    let score: number | undefined;
    if (lower === target) score = 0;
    else if (stem(name) === stem(wanted)) score = 1;
    else if (target.length >= 3 && (lower.includes(target) || target.includes(lower))) score = 2;
    else {
      const distance = editDistance(lower, target);
      if (distance <= Math.max(2, Math.floor(target.length / 3))) score = 2 + distance;
    }
    if (score !== undefined) scored.push({ name, score });
  }
  scored.sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : 1));
  return scored.slice(0, MAX_SUGGESTIONS).map((entry) => entry.name);
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The error for a path that does not exist: names in the same directory that look alike, or —
 * when the directory itself is missing — the nearest directory that does exist.
 */
export async function missingPathError(absolute: string, cwd: string, hint = ''): Promise<HermesError> {
  const shown = displayPath(absolute, cwd);
  const parent = dirname(absolute);
  const tail = hint === '' ? '' : ` ${hint}`;
  if (await isDirectory(parent)) {
    let entries: string[] = [];
    try {
      entries = await readdir(parent);
    } catch {
      // Unreadable directory: no suggestions.
    }
    const near = rankNearNames(basename(absolute), entries);
    const suggestion =
      near.length > 0
        ? ` Similar names in ${displayPath(parent, cwd)}: ${near.map((name) => displayPath(join(parent, name), cwd)).join(', ')}.`
        : ` Use search_files with target='files' to find it.`;
    return new HermesError('file_not_found', `File not found: ${shown}.${suggestion}${tail}`);
  }
  let existing = dirname(parent);
  while (existing !== dirname(existing) && !(await isDirectory(existing))) existing = dirname(existing);
  return new HermesError(
    'file_not_found',
    `File not found: ${shown} (directory ${displayPath(parent, cwd)} does not exist; nearest existing directory: ${displayPath(existing, cwd)}).${tail}`,
  );
}
