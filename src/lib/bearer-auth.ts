import { constantTimeEqual } from './constant-time-equal.js';

/** Compares an `Authorization: Bearer …` header with the key in constant time. */
export function bearerMatches(header: string | undefined, key: string): boolean {
  if (header === undefined) return false;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (match === null) return false;
  return constantTimeEqual(match[1] ?? '', key);
}

/** True for addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}
