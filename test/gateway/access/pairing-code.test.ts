import { describe, expect, it } from 'vitest';
import {
  generatePairingCode,
  normalisePairingCode,
  PAIRING_CODE_ALPHABET,
  PAIRING_CODE_LENGTH,
} from '../../../src/gateway/access/pairing-code.js';

describe('pairing codes', () => {
  it('uses an alphabet without look-alike characters', () => {
    for (const ambiguous of ['0', 'O', '1', 'I', 'L']) expect(PAIRING_CODE_ALPHABET).not.toContain(ambiguous);
    expect(new Set(PAIRING_CODE_ALPHABET).size).toBe(PAIRING_CODE_ALPHABET.length);
    expect(PAIRING_CODE_ALPHABET).toMatch(/^[A-Z2-9]+$/);
  });

  it('generates 8 characters from the alphabet, spread over all of it', () => {
    const codes = Array.from({ length: 2000 }, () => generatePairingCode());
    expect(PAIRING_CODE_LENGTH).toBe(8);
    const shape = new RegExp(`^[${PAIRING_CODE_ALPHABET}]{8}$`);
    for (const code of codes) expect(code).toMatch(shape);
    // 2000 draws from 31^8 codes: a repeat would mean a broken generator.
    expect(new Set(codes).size).toBe(codes.length);
    // 16 000 characters: every symbol shows up, and none dominates.
    const counts = new Map<string, number>();
    for (const char of codes.join('')) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(PAIRING_CODE_ALPHABET.length);
    for (const count of counts.values()) expect(count).toBeLessThan(1000);
  });

  it('normalises what people type', () => {
    expect(normalisePairingCode('abcd2345')).toBe('ABCD2345');
    expect(normalisePairingCode(' abcd-2345 ')).toBe('ABCD2345');
    expect(normalisePairingCode('ABCD 2345')).toBe('ABCD2345');
    expect(normalisePairingCode('')).toBeUndefined();
    expect(normalisePairingCode('ab')).toBeUndefined();
    expect(normalisePairingCode('ABCD;2345')).toBeUndefined();
  });
});
