import { describe, expect, it } from 'vitest';
import { globMatch, hasGlobSyntax } from '../../src/approval/policy-glob.js';

describe('globMatch', () => {
  it.each([
    ['podman *', 'podman ps -a', true],
    ['podman *', 'podman', false],
    ['podman*', 'podman', true],
    ['*', '', true],
    ['', '', true],
    ['', 'x', false],
    ['git push --force*', 'git push --force origin main', true],
    ['rm -rf /tmp/?', 'rm -rf /tmp/a', true],
    ['rm -rf /tmp/?', 'rm -rf /tmp/ab', false],
    ['*/etc/*', 'cat etc/passwd', false],
    ['*/etc/*', 'cp x /etc/hosts', true],
    ['[abc]at', 'bat', true],
    ['[!abc]at', 'bat', false],
    ['[a-c]at', 'cat', true],
    ['[a-c]at', 'dat', false],
    ['[]]x', ']x', true],
    ['[ab', '[ab', true],
    ['a*b*c', 'aXXbYYc', true],
    ['a*b*c', 'aXXbYY', false],
    ['*.sh', 'run.sh', true],
  ])('%j vs %j → %s', (pattern, text, expected) => {
    expect(globMatch(pattern, text)).toBe(expected);
  });

  it('is case-sensitive unless asked', () => {
    expect(globMatch('DROP *', 'drop table x')).toBe(false);
    expect(globMatch('DROP *', 'drop table x', { caseInsensitive: true })).toBe(true);
  });

  it('stays polynomial on a hostile pattern and a long text', () => {
    const text = 'a'.repeat(20_000);
    expect(globMatch('*a*a*a*a*a*a*a*b', text)).toBe(false);
    expect(globMatch('*a*a*a*a*a*a*a*', text)).toBe(true);
  });

  it('knows which patterns use wildcards', () => {
    expect(hasGlobSyntax('git status')).toBe(false);
    expect(hasGlobSyntax('git *')).toBe(true);
    expect(hasGlobSyntax('ls [ab]')).toBe(true);
  });
});
