/**
 * The spellings of a secret value a command can print without the value itself appearing:
 * JSON-escaped, URL-encoded, hex and base64 (standard and URL-safe, at each of the three byte
 * alignments a value can have inside a longer base64 stream such as `base64 .env`).
 */

/** Values shorter than this are not searched in encoded forms (they would match everywhere). */
export const MIN_ENCODED_VALUE_CHARS = 6;

/**
 * The characters of `base64(prefix + value + suffix)` that depend only on `value`, when `value`
 * starts `offset` bytes (0, 1 or 2) into a 3-byte group. Whatever surrounds the value in the
 * stream, these characters appear in its encoding.
 */
export function base64Core(bytes: Buffer, offset: 0 | 1 | 2): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
  const first = Math.ceil((8 * offset) / 6);
  const last = Math.floor((8 * (offset + bytes.length)) / 6);
  return encoded.slice(first, last);
}

function urlSafe(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_');
}

/** Every byte outside A–Z a–z 0–9 - . _ ~ percent-encoded (RFC 3986 unreserved kept). */
function encodeStrict(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${(c.charCodeAt(0) as number).toString(16).toUpperCase()}`,
  );
}

function urlForms(value: string): string[] {
  const upper = [encodeStrict(value), encodeURIComponent(value), encodeURI(value)];
  const out = new Set<string>();
  for (const form of upper) {
    out.add(form);
    out.add(form.replace(/%[0-9A-F]{2}/g, (code) => code.toLowerCase()));
    out.add(form.replace(/%20/g, '+'));
  }
  return [...out];
}

/** The value and its printable encodings (deduplicated; the raw value first). */
export function secretForms(value: string): string[] {
  const forms = new Set<string>([value]);
  forms.add(JSON.stringify(value).slice(1, -1));
  if (value.length < MIN_ENCODED_VALUE_CHARS) return [...forms];
  for (const form of urlForms(value)) forms.add(form);
  const bytes = Buffer.from(value, 'utf8');
  const hex = bytes.toString('hex');
  forms.add(hex);
  forms.add(hex.toUpperCase());
  for (const offset of [0, 1, 2] as const) {
    const core = base64Core(bytes, offset);
    forms.add(core);
    forms.add(urlSafe(core));
  }
  return [...forms];
}
