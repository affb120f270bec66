import { randomInt } from 'node:crypto';

/**
 * Pairing codes: short, typed by a person, read aloud or copied from a phone screen. The
 * alphabet leaves out characters that are easy to confuse (0/O, 1/I/L), so 31 symbols remain;
 * 8 of them give about 39 bits, plenty for a code that lives an hour and is capped at three
 * pending per platform.
 */
export const PAIRING_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const PAIRING_CODE_LENGTH = 8;

/** A fresh code from the operating system's CSPRNG. */
export function generatePairingCode(): string {
  let code = '';
  for (let i = 0; i < PAIRING_CODE_LENGTH; i += 1) {
    code += PAIRING_CODE_ALPHABET[randomInt(PAIRING_CODE_ALPHABET.length)];
  }
  return code;
}

/**
 * What a person typed, in the form codes are stored: upper-cased, with spaces and dashes
 * dropped (`abcd-2345` and `ABCD 2345` name the same code). Undefined when what remains cannot
 * be a code at all, so callers answer "not found" without asking the store.
 */
export function normalisePairingCode(input: string): string | undefined {
  const code = input.replace(/[\s-]+/g, '').toUpperCase();
  return /^[A-Z0-9]{4,32}$/.test(code) ? code : undefined;
}
