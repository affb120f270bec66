/*
 * PostgreSQL cannot store the NUL character, in text or in JSONB, where SQLite can. Tool output
 * and transcripts may carry one (a binary file read as text), so the PostgreSQL store writes
 * U+FFFD (the replacement character) in its place rather than failing the turn.
 */

const NUL = /\u0000/g;
/** `\u0000` escapes in JSON text that are not themselves an escaped backslash followed by `u0000`. */
const JSON_NUL = /(?<=(?:^|[^\\])(?:\\\\)*)\\u0000/g;

export function pgText(value: string): string;
export function pgText(value: string | null): string | null;
export function pgText(value: string | null): string | null {
  return value === null ? null : value.replace(NUL, '\uFFFD');
}

/** JSON text for a JSONB parameter. */
export function pgJson(value: unknown): string {
  return pgJsonText(JSON.stringify(value));
}

/** JSON text (already serialised) made storable in JSONB. */
export function pgJsonText(json: string): string {
  return json.replace(JSON_NUL, '\\ufffd');
}
