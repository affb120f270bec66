import { mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import { parseEntries } from '../../../src/tools/memory/memory-entries.js';
import { MemoryStore } from '../../../src/tools/memory/memory-store.js';
import { makeTempHome } from '../../helpers/test-config.js';

let temp: ReturnType<typeof makeTempHome>;
let root: string;
beforeEach(() => {
  temp = makeTempHome('hermes-memcache-');
  root = join(temp.home, 'memories');
});
afterEach(() => temp.cleanup());

const fileOf = (scope: string, name = 'MEMORY.md'): string => join(root, scope, name);

/** Writes a memory file by hand, as a person or another process would. */
function handWrite(scope: string, text: string, options: { ageMs?: number } = {}): string {
  const path = fileOf(scope);
  mkdirSync(join(root, scope), { recursive: true });
  writeFileSync(path, text);
  if (options.ageMs !== undefined) {
    const when = new Date(Date.now() - options.ageMs);
    utimesSync(path, when, when);
  }
  return path;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const HOUR = 3_600_000;

describe('MemoryStore read cache', () => {
  it('serves repeated reads of an unchanged file, present or missing, from one file open', async () => {
    handWrite('telegram.1', 'a fact\n§\nanother\n', { ageMs: HOUR });
    // A long recheck delay: on a slow machine the loop could outlast the default second.
    const store = new MemoryStore({ root, recheckAfterMs: 60_000 });
    for (let i = 0; i < 50; i++) {
      expect((await store.read('telegram.1', 'memory')).entries).toEqual(['a fact', 'another']);
      expect((await store.read('telegram.2', 'user')).entries).toEqual([]);
    }
    expect(store.cacheStats).toMatchObject({ files: 2, loads: 2, hits: 98, checks: 0 });
  });

  it('after the delay, confirms an unchanged file with a stat instead of reading it again', async () => {
    handWrite('telegram.1', 'a fact\n', { ageMs: HOUR });
    const store = new MemoryStore({ root, recheckAfterMs: 0 });
    for (let i = 0; i < 5; i++) {
      expect((await store.read('telegram.1', 'memory')).entries).toEqual(['a fact']);
      expect((await store.read('telegram.2', 'memory')).entries).toEqual([]);
    }
    expect(store.cacheStats).toMatchObject({ loads: 2, checks: 8, hits: 0 });
  });

  it('concurrent reads of a file share one load', async () => {
    handWrite('telegram.1', 'a fact\n', { ageMs: HOUR });
    const store = new MemoryStore({ root, recheckAfterMs: 60_000 });
    const views = await Promise.all(Array.from({ length: 20 }, () => store.read('telegram.1', 'memory')));
    expect(views.every((view) => view.entries[0] === 'a fact')).toBe(true);
    expect(store.cacheStats.loads).toBe(1);
  });

  it('sees a hand edit made after a cached read', async () => {
    const path = handWrite('telegram.1', 'old fact\n', { ageMs: HOUR });
    const store = new MemoryStore({ root, recheckAfterMs: 0 });
    expect((await store.read('telegram.1', 'memory')).entries).toEqual(['old fact']);
    writeFileSync(path, 'old fact\n§\nadded by hand\n');
    expect((await store.read('telegram.1', 'memory')).entries).toEqual(['old fact', 'added by hand']);
  });

  it('sees a same-size hand edit whose tool put the old mtime back (the ctime still moves)', async () => {
    const path = handWrite('telegram.1', 'fact: AAAA\n', { ageMs: HOUR });
    const before = statSync(path);
    const store = new MemoryStore({ root, recheckAfterMs: 0 });
    expect((await store.read('telegram.1', 'memory')).entries).toEqual(['fact: AAAA']);
    await sleep(5); // a ctime tick apart from the first write
    writeFileSync(path, 'fact: BBBB\n');
    utimesSync(path, before.atime, before.mtime);
    expect(statSync(path)).toMatchObject({ size: before.size, mtimeMs: before.mtimeMs, ino: before.ino });
    expect((await store.read('telegram.1', 'memory')).entries).toEqual(['fact: BBBB']);
  });

  it('sees the file deleted, and a missing file created', async () => {
    const path = handWrite('telegram.1', 'a fact\n', { ageMs: HOUR });
    const store = new MemoryStore({ root, recheckAfterMs: 0 });
    expect((await store.read('telegram.1', 'memory')).entries).toEqual(['a fact']);
    rmSync(path);
    expect((await store.read('telegram.1', 'memory')).entries).toEqual([]);
    expect((await store.read('telegram.1', 'memory')).entries).toEqual([]);
    handWrite('telegram.1', 'back again\n');
    expect((await store.read('telegram.1', 'memory')).entries).toEqual(['back again']);
  });

  it('sees an outside edit within recheckAfterMs, not before', async () => {
    const path = handWrite('telegram.1', 'old fact\n', { ageMs: HOUR });
    const store = new MemoryStore({ root, recheckAfterMs: 100 });
    expect((await store.read('telegram.1', 'memory')).entries).toEqual(['old fact']);
    writeFileSync(path, 'new fact\n');
    await sleep(150);
    expect((await store.read('telegram.1', 'memory')).entries).toEqual(['new fact']);

    const lazy = new MemoryStore({ root, recheckAfterMs: 60_000 });
    expect((await lazy.read('telegram.1', 'memory')).entries).toEqual(['new fact']);
    writeFileSync(path, 'newer fact\n');
    expect((await lazy.read('telegram.1', 'memory')).entries).toEqual(['new fact']);
  });

  it('does not trust the stamp of a file changed in the last seconds: it reads it again', async () => {
    handWrite('telegram.1', 'just written\n');
    const store = new MemoryStore({ root, recheckAfterMs: 0 });
    await store.read('telegram.1', 'memory');
    await store.read('telegram.1', 'memory');
    expect(store.cacheStats).toMatchObject({ loads: 2, checks: 0 });
  });

  it("shows the store's own changes at once, however long the recheck delay", async () => {
    const store = new MemoryStore({ root, recheckAfterMs: 60_000 });
    expect((await store.read('telegram.1', 'memory')).entries).toEqual([]);
    await store.add('telegram.1', 'memory', 'first');
    await store.add('telegram.1', 'memory', 'second');
    expect((await store.read('telegram.1', 'memory')).entries).toEqual(['first', 'second']);
    await store.replace('telegram.1', 'memory', 'first', 'premier');
    expect((await store.read('telegram.1', 'memory')).entries).toEqual(['premier', 'second']);
    await store.remove('telegram.1', 'memory', 'second');
    const view = await store.read('telegram.1', 'memory');
    expect(view.entries).toEqual(['premier']);
    expect(view.used).toBe('premier'.length);
    // One load for the first read, one fresh load per change; the reads after changes cost none.
    expect(store.cacheStats).toMatchObject({ loads: 5, hits: 3 });
  });

  it('applies a change to the file on disk, never to the cached copy', async () => {
    const path = handWrite('telegram.1', 'old fact\n', { ageMs: HOUR });
    const store = new MemoryStore({ root, recheckAfterMs: 60_000 });
    expect((await store.read('telegram.1', 'memory')).entries).toEqual(['old fact']);
    writeFileSync(path, 'old fact\n§\nadded by hand\n');
    const change = await store.add('telegram.1', 'memory', 'added by the agent');
    expect(change.entries).toEqual(['old fact', 'added by hand', 'added by the agent']);
    expect(parseEntries(readFileSync(path, 'utf8'))).toEqual(change.entries);
    expect((await store.read('telegram.1', 'memory')).entries).toEqual(change.entries);
    writeFileSync(path, 'only this\n');
    await store.remove('telegram.1', 'memory', 'only');
    expect((await store.read('telegram.1', 'memory')).entries).toEqual([]);
  });

  it('concurrent adds after a cached read keep every entry', async () => {
    const store = new MemoryStore({ root, recheckAfterMs: 60_000 });
    await store.read('telegram.1', 'memory');
    const texts = Array.from({ length: 10 }, (_, i) => `fact ${i}`);
    await Promise.all(texts.map((text) => store.add('telegram.1', 'memory', text)));
    expect((await store.read('telegram.1', 'memory')).entries).toEqual(texts);
    expect(parseEntries(readFileSync(fileOf('telegram.1'), 'utf8'))).toEqual(texts);
  });

  it('keeps at most cacheFiles files, dropping the least recently read', async () => {
    const scopes = ['telegram.1', 'telegram.2', 'telegram.3', 'telegram.4'];
    for (const scope of scopes) handWrite(scope, `${scope} v1\n`, { ageMs: HOUR });
    const store = new MemoryStore({ root, cacheFiles: 3, recheckAfterMs: 60_000 });
    for (const scope of scopes.slice(0, 3)) await store.read(scope, 'memory');
    await store.read('telegram.1', 'memory'); // now the most recent: telegram.2 is the oldest
    await store.read('telegram.4', 'memory');
    expect(store.cacheStats.files).toBe(3);
    for (const scope of scopes) handWrite(scope, `${scope} v2\n`, { ageMs: HOUR });
    // Still held (and within the delay): the old text; dropped: read again from disk.
    expect((await store.read('telegram.1', 'memory')).entries).toEqual(['telegram.1 v1']);
    expect((await store.read('telegram.2', 'memory')).entries).toEqual(['telegram.2 v2']);
    expect(store.cacheStats.files).toBe(3);

    const many = new MemoryStore({ root, cacheFiles: 10 });
    for (let i = 0; i < 40; i++) await many.read(`telegram.${i}`, i % 2 === 0 ? 'memory' : 'user');
    expect(many.cacheStats.files).toBe(10);
  });

  it('with cacheFiles 0 keeps nothing and reads every time', async () => {
    handWrite('telegram.1', 'a fact\n', { ageMs: HOUR });
    const store = new MemoryStore({ root, cacheFiles: 0 });
    await store.read('telegram.1', 'memory');
    await store.add('telegram.1', 'memory', 'second');
    expect((await store.read('telegram.1', 'memory')).entries).toEqual(['a fact', 'second']);
    expect(store.cacheStats.files).toBe(0);
  });

  it.each([{ cacheFiles: -1 }, { cacheFiles: 1.5 }, { recheckAfterMs: -1 }, { recheckAfterMs: Number.NaN }])(
    'refuses the cache option %j',
    (options) => {
      expect(() => new MemoryStore({ root, ...options })).toThrow(
        expect.toSatisfy((e: unknown) => isHermesError(e, 'config_invalid')),
      );
    },
  );
});
