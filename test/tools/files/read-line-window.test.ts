import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type LineWindowOptions, readLineWindow } from '../../../src/tools/files/read-line-window.js';
import { makeTempHome } from '../../helpers/test-config.js';

let temp: ReturnType<typeof makeTempHome>;
beforeEach(() => {
  temp = makeTempHome('hermes-lines-');
});
afterEach(() => temp.cleanup());

const defaults: Omit<LineWindowOptions, 'offset' | 'limit'> = {
  maxLineChars: 100,
  maxTotalChars: 1_000_000,
  maxCountBytes: 1_000_000_000,
  signal: new AbortController().signal,
};

async function window(
  content: string | Buffer,
  offset: number,
  limit: number,
  extra: Partial<LineWindowOptions> = {},
) {
  const path = join(temp.home, 'f.txt');
  await writeFile(path, content);
  const handle = await open(path, 'r');
  try {
    return await readLineWindow(handle, { ...defaults, offset, limit, ...extra });
  } finally {
    await handle.close();
  }
}

describe('readLineWindow', () => {
  it('reads lines that straddle the 64 KB read buffer', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `${i + 1}:${'y'.repeat(40 + (i % 13))}`);
    const result = await window(`${lines.join('\n')}\n`, 1400, 300);
    expect(result.totalLines).toBe(3000);
    expect(result.lines.map((line) => line.text)).toEqual(lines.slice(1399, 1699));
    expect(result.lines[0]?.number).toBe(1400);
  });

  it('truncates a line longer than the buffer without keeping it all', async () => {
    const result = await window(`a\n${'é'.repeat(100_000)}\nz`, 2, 2);
    expect(result.lines[0]?.text).toMatch(/^é{100} … \[line truncated: 200000 bytes in full\]$/);
    expect(result.lines[1]).toEqual({ number: 3, text: 'z' });
    expect(result.totalLines).toBe(3);
  });

  it('keeps multi-byte characters whole across chunk boundaries', async () => {
    const line = '€'.repeat(30_000);
    const result = await window(`${line}\n${line}\n`, 1, 2, { maxLineChars: 40_000 });
    expect(result.lines.map((entry) => entry.text)).toEqual([line, line]);
  });

  it('leaves the total unknown beyond the counting cap', async () => {
    const content = `${Array.from({ length: 40_000 }, (_, i) => `line ${i}`).join('\n')}\n`;
    const result = await window(content, 1, 5, { maxCountBytes: 100_000 });
    expect(result.lines).toHaveLength(5);
    expect(result.totalLines).toBeUndefined();
  });

  it('counts lines the same with and without a final newline, and blank lines too', async () => {
    expect((await window('a\n\nb', 1, 10)).totalLines).toBe(3);
    expect((await window('a\n\nb\n', 1, 10)).totalLines).toBe(3);
    expect((await window('\n', 1, 10)).lines).toEqual([{ number: 1, text: '' }]);
  });

  it('ends the window at the character budget but always returns one line', async () => {
    const result = await window('aaaa\nbbbb\ncccc\n', 1, 10, { maxTotalChars: 9 });
    expect(result.lines.map((line) => line.text)).toEqual(['aaaa', 'bbbb']);
    expect(result.cutByBudget).toBe(true);
    expect(result.totalLines).toBe(3);
    const single = await window('abcdefghij\n', 1, 10, { maxTotalChars: 3 });
    expect(single.lines).toHaveLength(1);
  });
});
