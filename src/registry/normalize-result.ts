/**
 * Turns what a handler returned into the text the model sees. Strings pass through; other
 * JSON-serialisable values are serialised; anything else (undefined, functions, bigint, bytes,
 * cycles) breaks the handler contract and is reported as such.
 */
export type NormalizedResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly type: string };

export function normalizeResult(value: unknown): NormalizedResult {
  if (typeof value === 'string') return { ok: true, text: value };
  const type = describeType(value);
  if (
    value === undefined ||
    typeof value === 'function' ||
    typeof value === 'symbol' ||
    typeof value === 'bigint' ||
    value instanceof Uint8Array ||
    value instanceof ArrayBuffer ||
    value instanceof Promise
  ) {
    return { ok: false, type };
  }
  try {
    const text = JSON.stringify(value);
    return typeof text === 'string' ? { ok: true, text } : { ok: false, type };
  } catch {
    return { ok: false, type };
  }
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  return (value as object).constructor?.name ?? 'object';
}
