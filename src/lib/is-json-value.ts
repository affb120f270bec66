/** Any JSON value; payloads cross process boundaries as JSON. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

const MAX_DEPTH = 64;

/**
 * True when `value` survives JSON unchanged: strings, finite numbers, booleans, null, arrays and
 * plain objects of those, at most 64 levels deep (which also stops cycles). A plain loop rather
 * than `z.json()`: it runs on every submitted item, and the recursive schema costs ~10× more.
 */
export function isJsonValue(value: unknown, depth = 0): value is JsonValue {
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (depth >= MAX_DEPTH) return false;
      if (Array.isArray(value)) {
        for (const element of value) if (!isJsonValue(element, depth + 1)) return false;
        return true;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        if (!isJsonValue((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}
