import { describe, expect, it } from 'vitest';
import { LruCache } from '../../src/lib/lru-cache.js';

describe('LruCache', () => {
  it('drops the least recently used entry; a read counts as a use', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('replacing a key keeps one entry and makes it the most recent', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 10);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(10);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.delete('a')).toBe(true);
    expect(cache.size).toBe(1);
  });

  it('with size 0 keeps nothing; a negative or fractional size is refused', () => {
    const none = new LruCache<string, number>(0);
    none.set('a', 1);
    expect(none.get('a')).toBeUndefined();
    expect(none.size).toBe(0);
    expect(() => new LruCache(-1)).toThrow(RangeError);
    expect(() => new LruCache(1.5)).toThrow(RangeError);
  });
});
