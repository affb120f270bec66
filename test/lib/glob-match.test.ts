import { describe, expect, it } from 'vitest';
import { compileGlobPattern, GlobSyntaxError, globMatch } from '../../src/lib/glob-match.js';

const PATHS = { paths: true, braces: true, escapes: true } as const;

describe('globMatch, commands dialect (fnmatch)', () => {
  it.each([
    ['rm -rf *', 'rm -rf /tmp/x/y', true],
    ['git push*', 'git status', false],
    ['npm ru? build', 'npm run build', true],
    ['[!a]*', 'abc', false],
    ['{a,b}', '{a,b}', true],
    ['a\\*', 'a\\xyz', true],
    ['[unclosed', '[unclosed', true],
  ])('%s ~ %s → %s', (pattern, text, expected) => {
    expect(globMatch(pattern, text)).toBe(expected);
  });

  it('folds case when asked, and counts code points', () => {
    expect(globMatch('RM -RF *', 'rm -rf /', { caseInsensitive: true })).toBe(true);
    expect(globMatch('say ?', 'say 🙂')).toBe(true);
  });

  it('answers a pattern made to backtrack over a 100 KB subject (no exponential blow-up)', () => {
    expect(globMatch('*a*a*a*a*a*a*a*a*b', 'a'.repeat(100_000))).toBe(false);
  });
});

describe('compileGlobPattern, paths dialect', () => {
  it.each([
    ['src/*.ts', 'src/deep/a.ts', false],
    ['src/**/test/*.ts', 'src/test/a.ts', true],
    ['**/*.md', 'a/b/c.md', true],
    ['src/**', 'src/a/b', true],
    ['*.{ts,{m,c}js}', 'x.mjs', true],
    ['*.{ts,{m,c}js}', 'x.js', false],
    ['[!a]', '/', false],
    ['\\{x}', '{x}', true],
  ])('%s ~ %s → %s', (pattern, text, expected) => {
    expect(compileGlobPattern(pattern, PATHS)(text)).toBe(expected);
  });

  it('refuses an unclosed brace', () => {
    expect(() => compileGlobPattern('*.{ts', PATHS)).toThrow(GlobSyntaxError);
  });
});
