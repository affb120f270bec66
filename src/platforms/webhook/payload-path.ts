/**
 * Reads `a.b.0.c` paths out of a webhook delivery: object keys by name (own keys only, so
 * `__proto__` or `constructor` never reach the prototype), array elements by index. A path
 * starting with `headers.` reads a request header instead (lower-case name); a payload's own
 * top-level `headers` field is shadowed by that.
 */
export interface WebhookEvent {
  readonly payload: unknown;
  /** Request headers (lower-case names) that templates and filters may see; no credentials. */
  readonly headers: Readonly<Record<string, string>>;
}

export type PathLookup = { readonly found: true; readonly value: unknown } | { readonly found: false };

const NOT_FOUND: PathLookup = { found: false };

/**
 * Headers never exposed to templates or filters (so never to the model): any name that speaks
 * of credentials or signatures — `authorization`, cookies, `x-hub-signature-256`,
 * `webhook-signature`, `x-gitlab-token`, `x-api-key`, `x-shopify-hmac-sha256`,
 * `x-telegram-bot-api-secret-token`, `x-lark-signature`, `x-signature-ed25519`…
 */
const HIDDEN_HEADER = /auth|cookie|token|secret|signature|hmac|api-?key|passw|credential/;

/** The request headers a template or filter may read. */
export function visibleHeaders(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (HIDDEN_HEADER.test(lower) || value === undefined) continue;
    out[lower] = typeof value === 'string' ? value : value.join(', ');
  }
  return out;
}

export function lookupPath(event: WebhookEvent, path: string): PathLookup {
  const parts = path.split('.');
  if (parts.some((part) => part === '')) return NOT_FOUND;
  if (parts[0] === 'headers' && parts.length === 2) {
    const name = parts[1]!.toLowerCase();
    return Object.hasOwn(event.headers, name) ? { found: true, value: event.headers[name] } : NOT_FOUND;
  }
  let node: unknown = event.payload;
  for (const part of parts) {
    if (Array.isArray(node)) {
      if (!/^\d{1,9}$/.test(part)) return NOT_FOUND;
      const index = Number(part);
      if (index >= node.length) return NOT_FOUND;
      node = node[index];
    } else if (typeof node === 'object' && node !== null) {
      if (!Object.hasOwn(node, part)) return NOT_FOUND;
      node = (node as Record<string, unknown>)[part];
    } else {
      return NOT_FOUND;
    }
  }
  return { found: true, value: node };
}
