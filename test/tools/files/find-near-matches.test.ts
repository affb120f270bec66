import { describe, expect, it } from 'vitest';
import { findNearMatches } from '../../../src/tools/files/find-near-matches.js';
import { rankNearNames } from '../../../src/tools/files/missing-path-error.js';

describe('findNearMatches', () => {
  it('finds text that differs only in indentation, ignoring blank edges of the needle', () => {
    const text = 'a\n    if (x) {\n        go();\n    }\nb\n';
    expect(findNearMatches(text, '\nif (x) {\n  go();\n}\n\n')).toEqual([
      { startLine: 2, endLine: 4, score: 1, whitespaceOnly: true },
    ]);
  });

  it('ranks similar windows and keeps them apart', () => {
    const text = ['alpha()', 'beta(1)', 'gamma', 'beta(2)', 'unrelated text here'].join('\n');
    const found = findNearMatches(text, 'beta(3)');
    expect(found.map((match) => match.startLine)).toEqual([2, 4]);
    expect(found[0]?.whitespaceOnly).toBe(false);
    expect(found[0]?.score).toBeGreaterThan(0.5);
  });

  it.each([
    ['full scan', 2_000],
    ['prefiltered scan', 120_000],
  ])('finds a multi-line block with small edits in a large file (%s)', (_label, count) => {
    const lines = Array.from({ length: count }, (_, i) => `value_${i} = compute(${i}, ${i * 7});`);
    const block = Array.from(
      { length: 10 },
      (_, k) => `  handler.step${k}({ name: 'phase ${k}', retries: ${k} });`,
    );
    const at = Math.floor(count * 0.7);
    lines.splice(at, block.length, ...block);
    const needle = block.map((line) => line.replace('retries', 'retry').trim()).join('\n');
    const [best] = findNearMatches(lines.join('\n'), needle);
    expect(best?.startLine).toBe(at + 1);
    expect(best?.endLine).toBe(at + 10);
  });

  it('returns nothing when no window is similar enough', () => {
    expect(findNearMatches('completely different\ncontent\n', 'zzzz qqqq')).toEqual([]);
  });
});

describe('rankNearNames', () => {
  it('prefers case, extension and small-typo variants', () => {
    const entries = ['README.md', 'config.json', 'confetti.ts', 'index.ts', 'Config.TS'];
    expect(rankNearNames('config.ts', entries).slice(0, 2)).toEqual(['Config.TS', 'config.json']);
    expect(rankNearNames('confg.ts', [...entries, 'config.ts'])).toContain('config.ts');
    expect(rankNearNames('zzz.py', entries)).toEqual([]);
  });
});
