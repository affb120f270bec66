/**
 * Whether JSON text opens more than `maxDepth` arrays or objects at once, read from the text
 * before any parse: one linear pass (brackets inside strings do not count). `JSON.parse` of a
 * document nested a few hundred thousand levels blocks the event loop for a second, so a body
 * is measured before it is parsed.
 */
export function jsonTextDepthExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i += 1; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (code === 0x5d || code === 0x7d) depth -= 1;
  }
  return false;
}
