import { describe, expect, it } from 'vitest';
import { OutputRing } from '../../../src/tools/terminal/output-ring.js';

describe('OutputRing', () => {
  it('keeps the most recent characters with absolute offsets', () => {
    const ring = new OutputRing(10);
    ring.append('0123456789');
    ring.append('abcde');
    expect(ring.text()).toBe('56789abcde');
    expect(ring.start).toBe(5);
    expect(ring.end).toBe(15);
  });

  it('reads from an offset and reports what was lost', () => {
    const ring = new OutputRing(8);
    ring.append('abcd');
    expect(ring.readFrom(2)).toEqual({ text: 'cd', from: 2, lost: 0 });
    ring.append('efghijkl');
    expect(ring.readFrom(2)).toEqual({ text: 'efghijkl', from: 4, lost: 2 });
    expect(ring.readFrom(ring.end)).toEqual({ text: '', from: 12, lost: 0 });
  });

  it('stays bounded over many small appends', () => {
    const ring = new OutputRing(1000);
    for (let i = 0; i < 10_000; i += 1) ring.append(`${i % 10}`);
    expect(ring.text().length).toBe(1000);
    expect(ring.end).toBe(10_000);
  });
});
