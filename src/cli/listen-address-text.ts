/** Hosts that bind every interface. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '0:0:0:0:0:0:0:0']);

/**
 * The banner's `http:` line. fastify reports one local address (127.0.0.1 for a wildcard bind),
 * which would hide that the API is reachable from other machines, so a wildcard bind says so.
 */
export function listenAddressText(configuredHost: string, address: string): string {
  const base = `${address}  (OpenAI API at ${address}/v1)`;
  if (!WILDCARD_HOSTS.has(configuredHost)) return base;
  const port = new URL(address).port;
  const bound = configuredHost.includes(':') ? `[::]:${port}` : `0.0.0.0:${port}`;
  return `${base}, listening on all interfaces (${bound})`;
}
