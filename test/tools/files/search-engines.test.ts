import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listFiles, searchContent } from '../../../src/tools/files/search-engines.js';
import { PageCollector, type SearchQuery } from '../../../src/tools/files/search-page.js';
import { type FileToolKit, makeFileToolKit } from './file-tool-kit.js';

const hasRipgrep = spawnSync('rg', ['--version'], { stdio: 'ignore' }).status === 0;

let kit: FileToolKit;
let root: string;
beforeEach(() => {
  kit = makeFileToolKit();
  for (let i = 0; i < 30; i += 1)
    kit.put(`dir${i % 3}/file${String(i).padStart(2, '0')}.txt`, `match ${i}\nother\nmatch again\n`);
  kit.put('a-b/x.txt', 'match\n');
  kit.put('a/x.txt', 'match\n');
  root = realpathSync(kit.cwd);
});
afterEach(() => kit.cleanup());

const query = (extra: Partial<SearchQuery> = {}): SearchQuery => ({
  root,
  rootIsFile: false,
  pattern: 'match',
  fileGlob: undefined,
  offset: 0,
  limit: 50,
  signal: new AbortController().signal,
  protectedFile: () => false,
  ...extra,
});

describe('PageCollector', () => {
  it('keeps one page, counts everything up to the cap, and counts distinct files', () => {
    const collector = new PageCollector<number>(2, 3, 6);
    const accepted = [1, 2, 3, 4, 5, 6, 7].map((n) => collector.add(n, `f${Math.ceil(n / 2)}`));
    expect(accepted).toEqual([true, true, true, true, true, false, false]);
    expect(collector.page(false)).toEqual({ items: [3, 4, 5], total: 6, files: 3, complete: false });
  });
});

describe('built-in engine', () => {
  it('reports itself and returns results in path order', async () => {
    const result = await searchContent(query({ limit: 3 }), false);
    expect(result.engine).toBe('node');
    expect(result.page.total).toBe(62);
    expect(result.page.files).toBe(32);
    expect(result.page.items.map((hit) => hit.file.slice(root.length + 1))).toEqual([
      'a/x.txt',
      'a-b/x.txt',
      'dir0/file00.txt',
    ]);
  });
});

describe.skipIf(!hasRipgrep)('ripgrep engine (runs only when rg is on PATH)', () => {
  it('is used when present and returns exactly what the built-in engine returns', async () => {
    for (const extra of [{}, { offset: 10, limit: 7 }, { fileGlob: 'dir1/*.txt' }, { pattern: 'again$' }]) {
      const viaRipgrep = await searchContent(query(extra), 'rg');
      expect(viaRipgrep.engine).toBe('ripgrep');
      expect(viaRipgrep.page, JSON.stringify(extra)).toEqual((await searchContent(query(extra), false)).page);
    }
    for (const pattern of ['*.txt', 'dir2/*', '**/x.txt']) {
      const viaRipgrep = await listFiles(query({ pattern }), 'rg');
      expect(viaRipgrep.engine).toBe('ripgrep');
      expect(viaRipgrep.page, pattern).toEqual((await listFiles(query({ pattern }), false)).page);
    }
  });

  it('stops ripgrep once the count cap is reached (lower-bound totals)', async () => {
    for (let i = 0; i < 12; i += 1)
      kit.put(`many/m${String(i).padStart(2, '0')}.txt`, 'match\n'.repeat(1000));
    const result = await searchContent(query({ limit: 1 }), 'rg');
    expect(result.page.complete).toBe(false);
    expect(result.page.total).toBe(10_000);
    const builtIn = await searchContent(query({ limit: 1 }), false);
    expect(builtIn.page).toEqual(result.page);
  });
});
