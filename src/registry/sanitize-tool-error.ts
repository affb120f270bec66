import { SecretScrubber } from './secret-scrubber.js';

/**
 * Cleans an error text before the model sees it: framing tokens that could be mistaken for the
 * conversation's own structure are stripped, secrets are redacted and the length is capped.
 */
const FRAMING_TAG =
  /<\/?\s*(?:tool_call|tool_result|function_call|function_result|result|response|output|input|system|assistant|user|tool|im_start|im_end)\b[^>]{0,200}>/gi;
const SPECIAL_TOKEN = /<\|[A-Za-z0-9_:.-]{1,40}\|>/g;
const CDATA_OPEN = /<!\[CDATA\[/gi;
const CDATA_CLOSE = /\]\]>/g;
const FENCE = /```[A-Za-z0-9_-]{0,20}/g;

/** Token shapes redacted even when we don't know the value. */
const SECRET_SHAPES: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\b\d{6,12}:[A-Za-z0-9_-]{30,}\b/g,
  /\b(?:ghp|gho|ghs|github_pat)_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\b(Bearer|Bot)\s+[A-Za-z0-9._~+/=-]{16,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
];

export const MAX_TOOL_ERROR_CHARS = 2000;

export function sanitizeToolError(message: string, secrets: readonly string[] | SecretScrubber = []): string {
  let text = redactText(message, secrets)
    .replace(FRAMING_TAG, '')
    .replace(SPECIAL_TOKEN, '')
    .replace(CDATA_OPEN, '')
    .replace(CDATA_CLOSE, '')
    .replace(FENCE, '')
    .trim();
  if (text.length > MAX_TOOL_ERROR_CHARS) text = `${text.slice(0, MAX_TOOL_ERROR_CHARS - 15)}… [truncated]`;
  return text;
}

/** Scrubbers for the value lists seen last (callers often rebuild the same list per call). */
const recent = new Map<string, SecretScrubber>();
const RECENT_LISTS = 8;

function scrubberOf(secrets: readonly string[] | SecretScrubber): SecretScrubber {
  if (secrets instanceof SecretScrubber) return secrets;
  const key = secrets.join('\u0000');
  let scrubber = recent.get(key);
  if (scrubber === undefined) {
    scrubber = new SecretScrubber(secrets);
    if (recent.size >= RECENT_LISTS) recent.delete(recent.keys().next().value as string);
  } else {
    recent.delete(key);
  }
  recent.set(key, scrubber);
  return scrubber;
}

/**
 * Replaces known secret values — also base64, hex and URL-encoded, and split over lines or dump
 * columns (see SecretScrubber) — and well-known token shapes with `[redacted]`. Pass the same
 * array (or a SecretScrubber) each time: the search is built once per array.
 */
export function redactText(text: string, secrets: readonly string[] | SecretScrubber = []): string {
  let out = scrubberOf(secrets).scrub(text);
  for (const shape of SECRET_SHAPES) {
    out = out.replace(shape, (_match, prefix: unknown) =>
      typeof prefix === 'string' && (prefix === 'Bearer' || prefix === 'Bot')
        ? `${prefix} [redacted]`
        : '[redacted]',
    );
  }
  return out;
}
