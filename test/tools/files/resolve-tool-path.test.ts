import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { displayPath, resolveToolPath } from '../../../src/tools/files/resolve-tool-path.js';

describe('resolveToolPath', () => {
  it('resolves relative paths against the task cwd and keeps absolute ones', () => {
    expect(resolveToolPath('src/a.ts', '/work/project')).toBe('/work/project/src/a.ts');
    expect(resolveToolPath('../other/b.ts', '/work/project')).toBe('/work/other/b.ts');
    expect(resolveToolPath('/etc/hosts', '/work/project')).toBe('/etc/hosts');
    expect(resolveToolPath('  notes.md ', '/work')).toBe('/work/notes.md');
  });

  it('expands ~ to the home directory at call time', () => {
    expect(resolveToolPath('~', '/work')).toBe(homedir());
    expect(resolveToolPath('~/notes/todo.md', '/work')).toBe(join(homedir(), 'notes/todo.md'));
    expect(resolveToolPath('~user/x', '/work')).toBe('/work/~user/x');
  });

  it('rejects empty paths and NUL bytes', () => {
    expect(() => resolveToolPath('', '/work')).toThrow(/path is empty/);
    expect(() => resolveToolPath('a\0b', '/work')).toThrow(/NUL/);
  });
});

describe('displayPath', () => {
  it('is relative inside the cwd and absolute outside it', () => {
    expect(displayPath('/work/project/src/a.ts', '/work/project')).toBe('src/a.ts');
    expect(displayPath('/work/project', '/work/project')).toBe('.');
    expect(displayPath('/work/other/b.ts', '/work/project')).toBe('/work/other/b.ts');
  });
});
