import { describe, expect, it } from 'vitest';
import { jsonTextDepthExceeds } from '../../src/lib/json-text-depth.js';

describe('jsonTextDepthExceeds', () => {
  it('counts open arrays and objects, not brackets inside strings', () => {
    expect(jsonTextDepthExceeds('{"a":[1,{"b":2}]}', 3)).toBe(false);
    expect(jsonTextDepthExceeds('{"a":[1,{"b":2}]}', 2)).toBe(true);
    expect(jsonTextDepthExceeds('{"a":"[[[[{{{{"}', 1)).toBe(false);
    expect(jsonTextDepthExceeds('{"a":"\\"[[[["}', 1)).toBe(false);
    expect(jsonTextDepthExceeds('[[],[],[]]', 2)).toBe(false);
    expect(jsonTextDepthExceeds('[[[]]]', 2)).toBe(true);
  });

  it('reads a document nested a million levels in one quick pass', () => {
    const text = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    const started = performance.now();
    expect(jsonTextDepthExceeds(text, 256)).toBe(true);
    expect(jsonTextDepthExceeds('[]'.repeat(500_000), 256)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
