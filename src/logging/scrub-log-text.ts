/**
 * Text-level scrubbing of a finished log line (or any text): credentials in URLs
 * (`redis://:pw@host`, `postgres://user:pw@host/db` → `scheme://[redacted]@host`), secret-looking
 * query parameters, `Bearer`/`Basic` credentials, and every known secret value in its plain,
 * JSON-escaped and URL-encoded spellings. Linear in the text for each secret.
 */

/** `scheme://userinfo@`: userinfo up to the last `@` before the host (a raw `@` in a password too). */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]{0,30}:\/\/)[^\s/?#"'<>\\]*@/gi;
const SECRET_QUERY =
  /([?&;](?:access_token|refresh_token|id_token|token|api[_-]?key|key|secret|client_secret|password|passwd|pwd|sig|signature|auth)=)[^&#\s"'<>\\]+/gi;
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/g;

/** Secret values shorter than this are not searched for (too many false hits). */
export const MIN_SECRET_LENGTH = 4;

/** The spellings of each secret worth searching for, longest first so none is left half-replaced. */
export function secretSpellings(secrets: readonly string[]): string[] {
  const out = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    out.add(secret);
    out.add(JSON.stringify(secret).slice(1, -1));
    out.add(encodeURIComponent(secret));
  }
  return [...out].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/** Scrubs `text`; `spellings` comes from `secretSpellings` (computed once per logger). */
export function scrubLogText(text: string, spellings: readonly string[]): string {
  let out = text;
  for (const secret of spellings) {
    if (out.includes(secret)) out = out.split(secret).join('[redacted]');
  }
  if (out.includes('://')) out = out.replace(URL_USERINFO, '$1[redacted]@');
  if (out.includes('=')) out = out.replace(SECRET_QUERY, '$1[redacted]');
  if (out.includes('Bearer') || out.includes('Basic')) out = out.replace(AUTH_SCHEME, '$1 [redacted]');
  return out;
}
