import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../../src/tools/files/compile-glob.js';

describe('compileGlob', () => {
  it.each([
    ['*.ts', 'a.ts', true],
    ['*.ts', 'src/deep/a.ts', true],
    ['*.ts', 'a.tsx', false],
    ['src/*.ts', 'src/a.ts', true],
    ['src/*.ts', 'src/deep/a.ts', false],
    ['src/*.ts', 'lib/src/a.ts', false],
    ['/src/*.ts', 'src/a.ts', true],
    ['./src/*.ts', 'src/a.ts', true],
    ['**/*.md', 'README.md', true],
    ['**/*.md', 'docs/a/b.md', true],
    ['src/**', 'src/a/b/c.ts', true],
    ['src/**/test/*.ts', 'src/test/a.ts', true],
    ['src/**/test/*.ts', 'src/x/y/test/a.ts', true],
    ['a**b', 'axxb', true],
    ['file?.txt', 'file1.txt', true],
    ['file?.txt', 'file10.txt', false],
    ['*.{ts,js}', 'x.js', true],
    ['*.{ts,js}', 'x.md', false],
    ['[abc].txt', 'b.txt', true],
    ['[!abc].txt', 'b.txt', false],
    ['[!abc].txt', 'd.txt', true],
    ['a+b(1).txt', 'a+b(1).txt', true],
    ['\\*.txt', '*.txt', true],
    ['\\*.txt', 'a.txt', false],
    ['[unclosed', '[unclosed', true],
  ])('%s ~ %s → %s', (glob, path, expected) => {
    expect(compileGlob(glob)(path)).toBe(expected);
  });

  it('throws a search_failed error for an unclosed brace', () => {
    expect(() => compileGlob('*.{ts')).toThrow(/never closed/);
  });
});
