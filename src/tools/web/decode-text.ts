/**
 * Bytes → string for fetched text: a byte-order mark wins, then the header's charset, then (for
 * HTML) a `<meta charset>` near the top, then UTF-8. Unknown labels fall back to UTF-8 and
 * undecodable bytes become U+FFFD rather than an error.
 */
export function decodeText(bytes: Uint8Array, headerCharset: string | undefined, isHtml: boolean): string {
  const label = bomCharset(bytes) ?? headerCharset ?? (isHtml ? metaCharset(bytes) : undefined) ?? 'utf-8';
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function bomCharset(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return undefined;
}

function metaCharset(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 2048));
  const match = /<meta[^>]+charset\s*=\s*["']?([a-z0-9_:.-]+)/i.exec(head);
  return match?.[1]?.toLowerCase();
}

/** True when the bytes look like text (no NUL bytes in the first few kilobytes). */
export function looksLikeText(bytes: Uint8Array): boolean {
  return !bytes.subarray(0, 4096).includes(0);
}
