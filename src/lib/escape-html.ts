const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

const PATTERNS = {
  text: /[&<>]/g,
  attribute: /[&<>"]/g,
  xml: /[&<>"']/g,
} as const;

/**
 * Escapes text for HTML or XML markup, in one pass:
 * - `text` (default): `&`, `<`, `>` — element content (Telegram's HTML subset);
 * - `attribute`: also `"` — a double-quoted attribute value;
 * - `xml`: also `'` as `&apos;` — anything in an XML document (Telegram does not know `&apos;`).
 */
export function escapeHtml(text: string, context: keyof typeof PATTERNS = 'text'): string {
  return text.replace(PATTERNS[context], (char) => ENTITIES[char] ?? char);
}
