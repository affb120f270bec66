import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time equality of two secrets of any lengths: both are hashed (SHA-256) first, so the
 * time taken says nothing about where they differ, nor about either length. Strings compare as
 * their UTF-8 bytes.
 */
export function constantTimeEqual(given: string | Uint8Array, expected: string | Uint8Array): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
