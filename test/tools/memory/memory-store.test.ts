import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import { KeyedSerializer } from '../../../src/tools/memory/keyed-serializer.js';
import { parseEntries } from '../../../src/tools/memory/memory-entries.js';
import { DEFAULT_MEMORY_LIMITS, MemoryStore } from '../../../src/tools/memory/memory-store.js';
import { makeTempHome } from '../../helpers/test-config.js';

let temp: ReturnType<typeof makeTempHome>;
let root: string;
beforeEach(() => {
  temp = makeTempHome('hermes-memstore-');
  root = join(temp.home, 'memories');
});
afterEach(() => temp.cleanup());

describe('MemoryStore', () => {
  it("uses Hermes' default caps and accepts others", () => {
    expect(DEFAULT_MEMORY_LIMITS).toEqual({ memory: 2_200, user: 1_375 });
    expect(new MemoryStore({ root }).limits).toEqual({ memory: 2_200, user: 1_375 });
    expect(new MemoryStore({ root, limits: { user: 50 } }).limits).toEqual({ memory: 2_200, user: 50 });
    expect(() => new MemoryStore({ root, limits: { memory: 0 } })).toThrow(/positive integer/);
  });

  it('serialises 20 concurrent adds: all present, file well-formed, no temp files left', async () => {
    const store = new MemoryStore({ root });
    const texts = Array.from({ length: 20 }, (_, i) => `fact number ${i}`);
    const results = await Promise.all(texts.map((text) => store.add('telegram.1', 'memory', text)));
    expect(results.every((r) => r.changed)).toBe(true);
    const file = readFileSync(join(root, 'telegram.1', 'MEMORY.md'), 'utf8');
    expect(parseEntries(file).sort()).toEqual([...texts].sort());
    expect(file).toBe(`${parseEntries(file).join('\n§\n')}\n`);
    expect(readdirSync(join(root, 'telegram.1'))).toEqual(['MEMORY.md']);
    expect((await store.read('telegram.1', 'memory')).entries).toHaveLength(20);
  });

  it('serialises concurrent mixed operations on one file', async () => {
    const store = new MemoryStore({ root });
    await store.add('s.1', 'user', 'keep me');
    await store.add('s.1', 'user', 'drop me');
    await Promise.all([
      store.remove('s.1', 'user', 'drop'),
      store.add('s.1', 'user', 'new one'),
      store.replace('s.1', 'user', 'keep', 'kept'),
      store.add('s.1', 'memory', 'other file'),
    ]);
    expect((await store.read('s.1', 'user')).entries).toEqual(['kept', 'new one']);
    expect((await store.read('s.1', 'memory')).entries).toEqual(['other file']);
  });

  it('a failed change does not block the next one on the same file', async () => {
    const store = new MemoryStore({ root, limits: { memory: 10 } });
    const outcomes = await Promise.allSettled([
      store.add('s.1', 'memory', 'x'.repeat(11)),
      store.add('s.1', 'memory', 'short'),
    ]);
    expect(outcomes[0]?.status).toBe('rejected');
    expect(outcomes[1]?.status).toBe('fulfilled');
  });

  it('concurrent adds that together pass the cap: the late ones are refused, the file stays within it', async () => {
    const store = new MemoryStore({ root, limits: { memory: 100 } });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => store.add('s.1', 'memory', `${i}`.padEnd(30, '.'))),
    );
    const added = outcomes.filter((o) => o.status === 'fulfilled').length;
    expect(added).toBe(3); // 30 + 3 + 30 + 3 + 30 = 96
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(refused.every((o) => isHermesError(o.reason, 'memory_full'))).toBe(true);
    expect((await store.read('s.1', 'memory')).used).toBe(96);
  });

  it('reads hand-edited files leniently', async () => {
    mkdirSync(join(root, 'telegram.7'), { recursive: true });
    writeFileSync(
      join(root, 'telegram.7', 'USER.md'),
      '\r\nfirst entry\r\n  §  \r\n\r\n§\nsecond\nentry\n§\nfirst entry\n§\n',
    );
    const store = new MemoryStore({ root });
    const view = await store.read('telegram.7', 'user');
    expect(view.entries).toEqual(['first entry', 'second\nentry']);
    expect(view.used).toBe('first entry\n§\nsecond\nentry'.length);
    expect((await store.read('telegram.7', 'memory')).entries).toEqual([]);
  });

  it('allows a shrinking replace even when the file is already over a lowered cap', async () => {
    mkdirSync(join(root, 'telegram.7'), { recursive: true });
    writeFileSync(join(root, 'telegram.7', 'MEMORY.md'), `${'a'.repeat(60)}\n§\n${'b'.repeat(60)}\n`);
    const store = new MemoryStore({ root, limits: { memory: 50 } });
    const change = await store.replace('telegram.7', 'memory', 'aaa', 'short');
    expect(change.entries).toEqual(['short', 'b'.repeat(60)]);
    await expect(store.replace('telegram.7', 'memory', 'short', 'x'.repeat(70))).rejects.toThrow(
      /over the limit/,
    );
    await expect(store.add('telegram.7', 'memory', 'more')).rejects.toThrow(/over the limit/);
  });

  it('an old_text equal to one whole entry picks it even when longer entries contain it', async () => {
    const store = new MemoryStore({ root });
    await store.add('s.1', 'memory', 'tea');
    await store.add('s.1', 'memory', 'tea with milk');
    const change = await store.remove('s.1', 'memory', 'tea');
    expect(change.entries).toEqual(['tea with milk']);
  });

  it('a replace with the same text changes nothing', async () => {
    const store = new MemoryStore({ root });
    await store.add('s.1', 'memory', 'same');
    const change = await store.replace('s.1', 'memory', 'same', 'same');
    expect(change.changed).toBe(false);
  });

  it.each(['../etc', '..', 'a', 'a/b.c', 'A.b', 'a.b.c.d', '', 'a.b/..'])(
    'refuses the scope %j',
    async (scope) => {
      const store = new MemoryStore({ root });
      await expect(store.read(scope, 'memory')).rejects.toSatisfy((e: unknown) =>
        isHermesError(e, 'path_refused'),
      );
      await expect(store.add(scope, 'memory', 'x')).rejects.toSatisfy((e: unknown) =>
        isHermesError(e, 'path_refused'),
      );
    },
  );
});

/** Lets every pending promise callback run (no clock involved). */
const drain = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('KeyedSerializer', () => {
  it('runs one key in order, lets other keys overlap, and forgets drained keys', async () => {
    const serializer = new KeyedSerializer();
    const log: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = serializer.run('a', async () => {
      log.push('a1 start');
      await gate;
      log.push('a1 end');
    });
    const second = serializer.run('a', async () => {
      log.push('a2');
    });
    const other = serializer.run('b', async () => {
      log.push('b');
    });
    await other;
    await drain();
    expect(log).toEqual(['a1 start', 'b']);
    expect(serializer.activeKeys).toBe(1);
    release();
    await Promise.all([first, second]);
    expect(log).toEqual(['a1 start', 'b', 'a1 end', 'a2']);
    await drain();
    expect(serializer.activeKeys).toBe(0);
  });
});
