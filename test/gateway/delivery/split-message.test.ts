import { describe, expect, it } from 'vitest';
import { splitMessage } from '../../../src/gateway/delivery/split-message.js';
import { type LengthUnit, measureLength } from '../../../src/platforms/adapter.js';

const utf16 = (text: string, maxLength: number) => splitMessage(text, { maxLength, unit: 'utf16' });

/** Every part fits, and no part starts or ends with half a surrogate pair. */
function expectWellFormed(parts: readonly string[], maxLength: number, unit: LengthUnit): void {
  for (const part of parts) {
    expect(measureLength(part, unit)).toBeLessThanOrEqual(maxLength);
    expect(part.length).toBeGreaterThan(0);
    expect(/^[\udc00-\udfff]/.test(part)).toBe(false);
    expect(/[\ud800-\udbff]$/.test(part)).toBe(false);
  }
}

/** Words of the parts joined back: what a reader sees across the messages. */
const words = (parts: readonly string[]) => parts.join(' ').split(/\s+/).filter(Boolean);

describe('splitMessage', () => {
  it.each([
    { name: 'empty text', text: '', max: 50, parts: [] },
    { name: 'blank text', text: ' \n\n ', max: 50, parts: [] },
    { name: 'short text, untouched', text: '  hi  ', max: 50, parts: ['  hi  '] },
    { name: 'exactly at the limit', text: 'x'.repeat(50), max: 50, parts: ['x'.repeat(50)] },
    { name: 'one over the limit, no break', text: 'x'.repeat(51), max: 50, parts: ['x'.repeat(50), 'x'] },
    {
      name: 'a paragraph break wins over a later line break',
      text: `${'a'.repeat(30)}\n\n${'b'.repeat(10)}\n${'c'.repeat(20)}`,
      max: 50,
      parts: ['a'.repeat(30), `${'b'.repeat(10)}\n${'c'.repeat(20)}`],
    },
    {
      name: 'a line break in the second half',
      text: `${'a'.repeat(40)}\n${'b'.repeat(20)}`,
      max: 50,
      parts: ['a'.repeat(40), 'b'.repeat(20)],
    },
    {
      name: 'a paragraph break in the first half loses to a space in the second',
      text: `${'a'.repeat(10)}\n\n${'b'.repeat(20)} ${'c'.repeat(30)}`,
      max: 50,
      parts: [`${'a'.repeat(10)}\n\n${'b'.repeat(20)}`, 'c'.repeat(30)],
    },
    {
      name: 'a space only in the first half means a hard cut',
      text: `${'a'.repeat(5)} ${'b'.repeat(60)}`,
      max: 50,
      parts: [`${'a'.repeat(5)} ${'b'.repeat(44)}`, 'b'.repeat(16)],
    },
    {
      name: 'a separator right at the limit is dropped, not sent',
      text: `${'a'.repeat(50)}\n${'b'.repeat(5)}`,
      max: 50,
      parts: ['a'.repeat(50), 'b'.repeat(5)],
    },
    {
      name: 'a single word longer than the limit',
      text: `short ${'w'.repeat(120)}`,
      max: 50,
      parts: [`short ${'w'.repeat(44)}`, 'w'.repeat(50), 'w'.repeat(26)],
    },
  ])('$name', ({ text, max, parts }) => {
    expect(utf16(text, max)).toEqual(parts);
  });

  it('never cuts a surrogate pair at the boundary (UTF-16)', () => {
    const text = `${'a'.repeat(49)}😀${'b'.repeat(10)}`;
    const parts = utf16(text, 50);
    expect(parts).toEqual(['a'.repeat(49), `😀${'b'.repeat(10)}`]);
    expectWellFormed(parts, 50, 'utf16');
  });

  it('counts an astral character once in code points', () => {
    const text = `${'a'.repeat(49)}😀😀${'b'.repeat(10)}`;
    const parts = splitMessage(text, { maxLength: 50, unit: 'codepoints' });
    expect(parts).toEqual([`${'a'.repeat(49)}😀`, `😀${'b'.repeat(10)}`]);
    expectWellFormed(parts, 50, 'codepoints');
  });

  it('keeps a ZWJ family emoji and a flag whole on a hard cut', () => {
    const family = '👨‍👩‍👧‍👦'; // 11 UTF-16 units
    const parts = utf16(`${'a'.repeat(45)}${family}${'b'.repeat(20)}`, 50);
    expect(parts).toEqual(['a'.repeat(45), `${family}${'b'.repeat(20)}`]);
    const flag = '🇫🇷';
    const flags = utf16(`${'a'.repeat(48)}${flag}${flag}`, 50);
    // 48 + 4 units: the cut at 50 would split the first flag between its two letters.
    expect(flags).toEqual(['a'.repeat(48), `${flag}${flag}`]);
  });

  it('survives a text of emoji only', () => {
    const text = '😀'.repeat(100);
    const parts = utf16(text, 51);
    expectWellFormed(parts, 51, 'utf16');
    expect(parts.join('')).toBe(text);
  });

  it('splits CJK text, preferring a cut after sentence punctuation', () => {
    const text = '这是一个很长的中文句子用来测试分割功能。我们需要确保它在正确的位置被切开这是另一个句子。';
    const parts = splitMessage(text, { maxLength: 24, unit: 'codepoints' });
    expect(parts[0]).toBe('这是一个很长的中文句子用来测试分割功能。');
    expect(parts.join('')).toBe(text);
    expectWellFormed(parts, 24, 'codepoints');
  });

  it('never cuts a markdown link that fits, nor a bare URL', () => {
    const link = '[the docs](https://example.com/a/very/long/path_(x))';
    const text = `Read ${'more '.repeat(5)}in ${link} and then come back please.`;
    const parts = utf16(text, 60);
    expect(parts.some((part) => part.includes(link))).toBe(true);
    expectWellFormed(parts, 60, 'utf16');

    const url = 'https://example.com/some/really/long/address?with=query';
    const bare = utf16(`Look at ${'this '.repeat(3)}${url} now`, 60);
    expect(bare.some((part) => part.includes(url))).toBe(true);
  });

  it('cuts a link longer than a part (it cannot be kept whole)', () => {
    const link = `[x](https://example.com/${'p'.repeat(80)})`;
    const parts = utf16(link, 50);
    expectWellFormed(parts, 50, 'utf16');
    expect(parts.join('')).toBe(link);
  });

  it('closes and reopens a code fence that spans three parts, with its language tag', () => {
    const code = Array.from({ length: 9 }, (_, index) => `const v${index} = ${index};`).join('\n');
    const text = `Here:\n\`\`\`ts\n${code}\n\`\`\`\nDone.`;
    const parts = utf16(text, 60);
    expectWellFormed(parts, 60, 'utf16');
    expect(parts).toHaveLength(3);
    for (const part of parts) expect((part.match(/^```/gm) ?? []).length).toBe(2); // balanced in each
    expect(parts[0]?.startsWith('Here:\n```ts\n')).toBe(true);
    expect(parts[0]?.endsWith('\n```')).toBe(true);
    expect(parts[1]?.startsWith('```ts\n')).toBe(true);
    expect(parts[1]?.endsWith('\n```')).toBe(true);
    expect(parts[2]?.startsWith('```ts\n')).toBe(true);
    expect(parts[2]?.endsWith('\n```\nDone.')).toBe(true);
    // Every line of code arrives once, in order.
    const codeLines = parts
      .join('\n')
      .split('\n')
      .filter((line) => line.startsWith('const v'));
    expect(codeLines).toEqual(code.split('\n'));
  });

  it('keeps indentation inside a reopened fence and handles ~~~ fences', () => {
    const text = `~~~~py\ndef f():\n    return 1\n\n\n    # more\n    pass\n~~~~\nafter that there is text`;
    const parts = utf16(text, 30);
    expectWellFormed(parts, 30, 'utf16');
    expect(parts.join('\n')).toContain('    return 1');
    expect(parts.join('\n')).toContain('    pass');
    for (const part of parts.filter((p) => p.includes('return') || p.includes('pass'))) {
      expect(part.startsWith('~~~~py\n') || part.startsWith('~~~~py')).toBe(true);
      expect(part.endsWith('~~~~')).toBe(true);
    }
    expect(words(parts).slice(-5)).toEqual(['after', 'that', 'there', 'is', 'text']);
  });

  it('does not reopen a fence only to close it again', () => {
    const text = `\`\`\`\n${'x'.repeat(20)}\n\`\`\`\n${'word '.repeat(10)}`;
    const parts = utf16(text, 30);
    expect(parts[0]).toBe(`\`\`\`\n${'x'.repeat(20)}\n\`\`\``);
    expect(parts.slice(1).some((part) => part.includes('```'))).toBe(false);
  });

  it('judges a line cut in the middle whole: a backtick in its info string means no fence', () => {
    // "``` word … `x`" is not a fence line (a backtick fence's info string has no backticks), but
    // its first part alone would look like one: nothing may be closed or reopened, nothing added.
    const text = `\`\`\` ${'word '.repeat(10)}\`x\``;
    for (const max of [3, 20, 33]) {
      const parts = utf16(text, max);
      expectWellFormed(parts, max, 'utf16');
      expect(parts.join('').replace(/\s+/g, '')).toBe(text.replace(/\s+/g, ''));
    }
  });

  it('adds part indicators when asked, within the limit', () => {
    const text = 'word '.repeat(30).trim();
    const parts = splitMessage(text, { maxLength: 50, unit: 'utf16', partIndicators: true });
    expect(parts.length).toBeGreaterThan(1);
    parts.forEach((part, index) => {
      expect(part.endsWith(` (${index + 1}/${parts.length})`)).toBe(true);
    });
    expectWellFormed(parts, 50, 'utf16');
    expect(splitMessage('short', { maxLength: 50, unit: 'utf16', partIndicators: true })).toEqual(['short']);
  });

  it('is deterministic and keeps every word, in order', () => {
    const text = Array.from({ length: 200 }, (_, index) => `w${index}${index % 7 === 0 ? '\n' : ''}`).join(
      ' ',
    );
    const first = utf16(text, 64);
    expect(utf16(text, 64)).toEqual(first);
    expect(words(first)).toEqual(words([text]));
    expectWellFormed(first, 64, 'utf16');
  });

  it('keeps every character and fits every part, on random mixed texts', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pieces = [
      'word',
      ' ',
      ' ',
      '\n',
      '\n\n',
      '😀',
      '👨‍👩‍👧',
      '中文',
      '[a link](https://x.io/p)',
      '\n```js\n',
      '\n```\n',
      'é',
    ];
    // What a reader gets, ignoring whitespace and fence lines (those are added or dropped on purpose).
    const essence = (value: string) =>
      value
        .split('\n')
        .filter((line) => !/^ {0,3}(`{3,}|~{3,})/.test(line))
        .join('')
        .replace(/\s+/g, '');
    for (let round = 0; round < 200; round += 1) {
      const length = 20 + Math.floor(random() * 150);
      const text = Array.from({ length }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      const unit: LengthUnit = round % 2 === 0 ? 'utf16' : 'codepoints';
      const max = 24 + Math.floor(random() * 60);
      const parts = splitMessage(text, { maxLength: max, unit });
      expectWellFormed(parts, max, unit);
      expect(essence(parts.join('\n'))).toBe(essence(text));
    }
  });

  it('refuses a limit below 2', () => {
    expect(() => utf16('abc', 1)).toThrow(RangeError);
  });
});
