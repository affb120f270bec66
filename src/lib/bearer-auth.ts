import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares an `Authorization: Bearer …` header with the key in constant time. */
export function bearerMatches(header: string | undefined, key: string): boolean {
  if (header === undefined) return false;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (match === null) return false;
  const given = createHash('sha256')
    .update(match[1] ?? '')
    .digest();
  const expected = createHash('sha256').update(key).digest();
  return timingSafeEqual(given, expected);
}

/** True for addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}
