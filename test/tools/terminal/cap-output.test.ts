import { describe, expect, it } from 'vitest';
import { capOutput, HeadTailCollector } from '../../../src/tools/terminal/cap-output.js';

describe('capOutput', () => {
  it('returns short text unchanged', () => {
    expect(capOutput('hello', 10)).toBe('hello');
  });

  it('keeps head and tail around a visible marker', () => {
    const text = `${'a'.repeat(50)}${'m'.repeat(1000)}${'z'.repeat(50)}`;
    const out = capOutput(text, 100);
    expect(out.startsWith('a'.repeat(40))).toBe(true);
    expect(out.endsWith('z'.repeat(50))).toBe(true);
    expect(out).toContain('[… 1000 characters omitted …]');
  });
});

describe('HeadTailCollector', () => {
  it('gives the same result as capOutput on the whole text, whatever the chunking', () => {
    const text = Array.from({ length: 500 }, (_, i) => `line ${i}\n`).join('');
    for (const size of [1, 7, 64, 4096]) {
      const collector = new HeadTailCollector(300);
      for (let i = 0; i < text.length; i += size) collector.push(text.slice(i, i + size));
      expect(collector.text()).toBe(capOutput(text, 300));
      expect(collector.total).toBe(text.length);
    }
  });

  it('keeps everything when under the cap', () => {
    const collector = new HeadTailCollector(100);
    collector.push('abc');
    collector.push('def');
    expect(collector.text()).toBe('abcdef');
    expect(collector.omitted).toBe(0);
  });
});
