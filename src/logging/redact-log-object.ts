import { stdSerializers } from 'pino';

export const REDACTED = '[redacted]';

/** Levels walked below the logged object; deeper values are replaced by a marker. */
export const MAX_DEPTH = 12;
/** Values visited per log call; the rest of the object is replaced by a marker. */
export const MAX_NODES = 5_000;

/**
 * Field names whose values never reach a log line, compared lower-cased with `-`, `_`, `.` and
 * spaces removed: keys and tokens, passwords, the `Authorization` and cookie headers, and the
 * headers that carry a webhook signature or a platform's secret token (`x-hub-signature-256`,
 * `webhook-signature`, `x-lark-signature`, `x-signature-ed25519`,
 * `x-telegram-bot-api-secret-token`…). Numbers and booleans under such names (token counts)
 * are kept.
 */
const SENSITIVE_NAME =
  /(?:apikey|accesskey|privatekey|encryptkey|signingkey|token|secret|passw|passphrase|authorization|cookie|signature|credential)/;

function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_.\s]/g, '');
}

/** True for a field or header name whose value is a secret. */
export function isSensitiveName(name: string): boolean {
  return SENSITIVE_NAME.test(normalize(name));
}

function isPlainValue(value: unknown): boolean {
  return (
    value === null || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint'
  );
}

/**
 * A copy of a logged object with the values under sensitive names replaced, at any depth
 * (strings are scrubbed later, on the whole line: `scrubLogText`). Errors become pino's
 * `{ type, message, stack, … }` first so their fields are walked too. Cycles print
 * `[Circular]`; the walk is bounded in depth and in values visited, so a huge or hostile
 * object cannot stall logging.
 */
export function redactLogObject(value: unknown): unknown {
  let budget = MAX_NODES;
  const path = new Set<object>();

  const walk = (node: unknown, depth: number): unknown => {
    budget -= 1;
    if (budget < 0) return '[truncated]';
    if (typeof node !== 'object' || node === null) return node;
    if (ArrayBuffer.isView(node) || node instanceof ArrayBuffer) return node;
    if (depth > MAX_DEPTH) return '[depth limit]';
    if (path.has(node)) return '[Circular]';
    path.add(node);
    try {
      if (node instanceof Error) return walk(stdSerializers.err(node), depth);
      if (Array.isArray(node)) return node.map((item) => walk(item, depth + 1));
      const toJson = (node as { toJSON?: unknown }).toJSON;
      if (typeof toJson === 'function') return walk(toJson.call(node), depth);
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(node)) {
        const item = (node as Record<string, unknown>)[key];
        out[key] =
          isSensitiveName(key) && item !== undefined && !isPlainValue(item)
            ? REDACTED
            : walk(item, depth + 1);
      }
      return out;
    } finally {
      path.delete(node);
    }
  };

  return walk(value, 0);
}
