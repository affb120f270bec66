import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Finds an executable the way a shell would: a name with a slash is taken as a path, otherwise
 * each directory of `pathValue` is searched in order. Returns the absolute path or undefined.
 */
export function findExecutable(name: string, pathValue: string | undefined): string | undefined {
  if (name.length === 0) return undefined;
  if (name.includes('/')) {
    const path = isAbsolute(name) ? name : resolve(name);
    return isExecutableFile(path) ? path : undefined;
  }
  for (const dir of (pathValue ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return isAbsolute(candidate) ? candidate : resolve(candidate);
  }
  return undefined;
}
