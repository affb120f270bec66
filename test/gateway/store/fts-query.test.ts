import { describe, expect, it } from 'vitest';
import { MAX_SEARCH_TERMS, makeSnippet, planSearch } from '../../../src/gateway/store/fts-query.js';

describe('planSearch', () => {
  it('quotes every long term and ANDs them', () => {
    expect(planSearch('deploy staging')).toEqual({
      match: '"deploy" "staging"',
      likes: [],
      terms: ['deploy', 'staging'],
    });
  });

  it('doubles inner quotes so FTS5 syntax is never parsed', () => {
    expect(planSearch('say "hi" NEAR(a b) col:x -neg')?.match).toBe('"say" """hi""" "NEAR(a" "col:x" "-neg"');
  });

  it('routes short terms to escaped LIKE patterns', () => {
    expect(planSearch('部署 go 100% a_b \\')).toEqual({
      match: '"100%" "a_b"',
      likes: ['%部署%', '%go%', '%\\\\%'],
      terms: ['部署', 'go', '100%', 'a_b', '\\'],
    });
    expect(planSearch('%')?.likes).toEqual(['%\\%%']);
  });

  it('returns undefined when nothing is searchable', () => {
    for (const input of ['', '   ', '\n\t', '\u0000\u0001']) expect(planSearch(input)).toBeUndefined();
  });

  it('dedupes case-insensitively and bounds terms and their length', () => {
    expect(planSearch('Deploy deploy DEPLOY')?.terms).toEqual(['Deploy']);
    const many = planSearch(Array.from({ length: 50 }, (_, i) => `term${i}`).join(' '));
    expect(many?.terms).toHaveLength(MAX_SEARCH_TERMS);
    expect(planSearch('y'.repeat(1000))?.terms[0]).toHaveLength(100);
  });
});

describe('makeSnippet', () => {
  it('marks matches and trims around the first one', () => {
    const text = `${'a'.repeat(200)} the Deploy went fine ${'b'.repeat(200)}`;
    const snippet = makeSnippet(text, ['deploy']);
    expect(snippet).toContain('the **Deploy** went fine');
    expect(snippet.startsWith('…')).toBe(true);
    expect(snippet.endsWith('…')).toBe(true);
    expect(snippet.length).toBeLessThanOrEqual(200);
  });

  it('falls back to the start when no term appears verbatim', () => {
    expect(makeSnippet('Café au lait', ['cafe'])).toBe('Café au lait');
  });

  it('never splits a surrogate pair', () => {
    const text = `${'😀'.repeat(100)}xneedlex${'😀'.repeat(100)}`; // odd offsets: a naive cut splits pairs
    const snippet = makeSnippet(text, ['needle']);
    expect(snippet).toContain('**needle**');
    expect(snippet).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
});
