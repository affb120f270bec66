/**
 * What Telegram does with `parse_mode: HTML`: only its tag subset, properly nested, and `<`, `>`,
 * `&` escaped elsewhere. Returns the visible text, or the "can't parse entities" reason.
 */
const TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'span',
  'tg-spoiler',
  'a',
  'tg-emoji',
  'code',
  'pre',
  'blockquote',
]);

const ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"' };

export type HtmlParse =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly error: string };

export function parseTelegramHtml(html: string): HtmlParse {
  const stack: string[] = [];
  let text = '';
  let index = 0;
  while (index < html.length) {
    const char = html[index];
    if (char === '<') {
      const tag = /^<(\/?)([a-zA-Z-]+)((?:\s[^<>]*)?)>/.exec(html.slice(index));
      if (tag === null) return { ok: false, error: `Unexpected character '<' at byte offset ${index}` };
      const [whole, closing, rawName] = tag;
      const name = (rawName ?? '').toLowerCase();
      if (!TAGS.has(name)) {
        return {
          ok: false,
          error: `Unsupported ${closing ? 'end' : 'start'} tag "${name}" at byte offset ${index}`,
        };
      }
      if (closing) {
        if (stack.at(-1) !== name) {
          return {
            ok: false,
            error: `Can't find end tag corresponding to start tag "${stack.at(-1) ?? name}"`,
          };
        }
        stack.pop();
      } else {
        stack.push(name);
      }
      index += whole.length;
      continue;
    }
    if (char === '&') {
      const entity = /^&(lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);/.exec(html.slice(index));
      if (entity !== null) {
        const name = entity[1] ?? '';
        text += name.startsWith('#x')
          ? String.fromCodePoint(Number.parseInt(name.slice(2), 16))
          : name.startsWith('#')
            ? String.fromCodePoint(Number(name.slice(1)))
            : (ENTITIES[name] ?? '');
        index += entity[0].length;
        continue;
      }
    }
    if (char === '>') return { ok: false, error: `Unexpected character '>' at byte offset ${index}` };
    text += char;
    index += 1;
  }
  if (stack.length > 0) {
    return { ok: false, error: `Can't find end tag corresponding to start tag "${stack.at(-1)}"` };
  }
  return { ok: true, text };
}
