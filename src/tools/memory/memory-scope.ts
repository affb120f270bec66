import { createHash } from 'node:crypto';

/** What a memory scope is derived from: the chat user when known, else the session. */
export interface MemoryScopeSource {
  readonly platform: string | undefined;
  readonly userId: string | undefined;
  readonly sessionKey: string;
}

/** A part kept as it is: lower case (safe on case-insensitive disks), no dots, no separators. */
const PLAIN_PART = /^[a-z0-9_-]{1,64}$/;
/** The shape every scope has; the store refuses anything else before touching the disk. */
export const SCOPE_PATTERN = /^[a-z0-9_-]{1,64}(?:\.[a-z0-9_-]{1,64}){1,2}$/;

function slug(part: string): string {
  const folded = part
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .slice(0, 40);
  return folded === '' ? '_' : folded;
}

function digest(kind: string, parts: readonly string[]): string {
  return createHash('sha256')
    .update([kind, ...parts].join('\u0000'))
    .digest('hex')
    .slice(0, 16);
}

/**
 * The folder name under `memories/` for one user: `<platform>.<user>` when both are plain
 * (e.g. `telegram.12345`), otherwise readable slugs plus a hash of the exact values
 * (`discord.bob_smith.h3f2a…`), so two different users never share a folder — not through
 * case, punctuation or `../` tricks — and the name is always a single safe path segment.
 * Without a platform and a user id the session key is the scope (hashed, never plain, so it
 * cannot collide with a user scope).
 */
export function memoryScope(source: MemoryScopeSource): string {
  const platform = source.platform ?? '';
  const userId = source.userId ?? '';
  if (platform !== '' && userId !== '') {
    if (PLAIN_PART.test(platform) && PLAIN_PART.test(userId)) return `${platform}.${userId}`;
    return `${slug(platform)}.${slug(userId)}.h${digest('user', [platform, userId])}`;
  }
  return `session.${slug(source.sessionKey)}.h${digest('session', [source.sessionKey])}`;
}
