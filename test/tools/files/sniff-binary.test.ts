import { describe, expect, it } from 'vitest';
import { sniffBinary } from '../../../src/tools/files/sniff-binary.js';

const bytes = (...values: number[]): Buffer => Buffer.from(values);

describe('sniffBinary', () => {
  it('treats UTF-8 text (with accents, emoji, tabs, CRLF) as text', () => {
    expect(sniffBinary(Buffer.from('héllo wörld 👋\tcolumn\r\nnext line\n'))).toBeUndefined();
    expect(sniffBinary(Buffer.alloc(0))).toBeUndefined();
  });

  it('does not count a multi-byte character cut at the end of the sample', () => {
    const text = Buffer.from('ab€');
    expect(sniffBinary(text.subarray(0, text.length - 1))).toBeUndefined();
  });

  it('names common formats by their magic numbers', () => {
    expect(sniffBinary(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a))).toBe('PNG image');
    expect(sniffBinary(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe('JPEG image');
    expect(sniffBinary(Buffer.from('%PDF-1.7\n'))).toBe('PDF document');
    expect(sniffBinary(bytes(0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0))).toBe('ELF executable');
    expect(sniffBinary(Buffer.from('SQLite format 3\0'))).toBe('SQLite database');
    expect(sniffBinary(bytes(0xff, 0xfe, 0x41, 0x00))).toContain('UTF-16');
  });

  it('trusts weak two-letter signatures only with other evidence', () => {
    expect(sniffBinary(Buffer.from('MZ is a text file about Mozambique\n'))).toBeUndefined();
    expect(sniffBinary(Buffer.from('MZ\0\0\x90\0'))).toBe('Windows executable');
  });

  it('flags NUL bytes, invalid UTF-8 and control characters', () => {
    expect(sniffBinary(Buffer.from('abc\0def'))).toBe('binary data');
    expect(sniffBinary(bytes(0xe9, 0xe8, 0x41, 0xe0, 0x42))).toContain('non-UTF-8');
    expect(sniffBinary(bytes(1, 2, 3, 4, 5, 6, 0x41))).toBe('binary data');
  });
});
