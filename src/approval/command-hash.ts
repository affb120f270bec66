import { createHash, randomBytes } from 'node:crypto';

/**
 * Binds a decision to one exact command in one working directory: sha256 over the command, a NUL
 * byte and the cwd, in hex. The NUL keeps `("a b", "c")` and `("a", "b c")` apart.
 */
export function commandHash(command: string, cwd: string): string {
  return createHash('sha256').update(command).update('\0').update(cwd).digest('hex');
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Characters in a request id: 12 of 62 symbols is about 71 bits. */
export const REQUEST_ID_LENGTH = 12;

/**
 * A short random request id of [A-Za-z0-9], so a button payload such as `ea:session:<id>` stays
 * far below Telegram's 64-byte callback_data limit. Rejection sampling keeps the symbols uniform.
 */
export function randomRequestId(length = REQUEST_ID_LENGTH): string {
  let id = '';
  while (id.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: bytes at or above it would bias the first symbols.
      if (byte >= 248) continue;
      id += ID_ALPHABET[byte % 62];
      if (id.length === length) break;
    }
  }
  return id;
}

/** True for ids this module could have produced (any length 1–16 of [A-Za-z0-9]). */
export function isRequestId(value: string): boolean {
  return /^[A-Za-z0-9]{1,16}$/.test(value);
}
