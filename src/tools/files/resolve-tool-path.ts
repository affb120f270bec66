import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { HermesError } from '../../errors/hermes-error.js';

/**
 * Turns a path the model gave into an absolute one: `~` and `~/…` mean the user's home
 * directory, absolute paths stay as they are, anything else is relative to the task's cwd.
 */
export function resolveToolPath(input: string, cwd: string): string {
  const path = input.trim();
  if (path === '') throw new HermesError('file_bad_argument', 'path is empty: give a file path.');
  if (path.includes('\0')) throw new HermesError('file_bad_argument', 'path contains a NUL byte.');
  if (path === '~') return homedir();
  if (path.startsWith('~/')) return join(homedir(), path.slice(2));
  return resolve(cwd, path);
}

/**
 * How a path is shown back to the model: relative to the task's cwd when it lies inside it (so
 * it can be passed straight back to another file tool), absolute otherwise. Always `/`-separated.
 */
export function displayPath(absolute: string, cwd: string): string {
  const rel = relative(cwd, absolute);
  if (rel === '') return '.';
  if (rel.startsWith('..') || isAbsolute(rel)) return absolute.split(sep).join('/');
  return rel.split(sep).join('/');
}
