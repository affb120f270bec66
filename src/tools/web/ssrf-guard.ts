import { lookup } from 'node:dns/promises';
import { HermesError } from '../../errors/hermes-error.js';
import { createAllowList } from './allow-list.js';
import { classifyAddress, isMetadataHostName } from './classify-address.js';
import { type IpAddress, parseIp } from './ip-address.js';

/**
 * Keeps the web tools from being turned against the gateway's own network (SSRF). A URL is
 * checked before each request (scheme, credentials, metadata host names, address literals), and
 * each connection resolves its host name itself, checks every address the name resolves to, and
 * connects to the checked address — so a DNS answer that changes between check and connect
 * (rebinding) cannot slip through. Redirects are followed by the caller one hop at a time, each
 * hop passing through both checks again.
 */
export interface SsrfGuard {
  /** Throws `ssrf_refused` when the URL may not be requested at all. */
  checkUrl(url: URL): void;
  /**
   * Resolves a host and refuses it if any of its addresses is forbidden; returns the checked
   * addresses, which are the only ones the caller may dial.
   */
  resolveTarget(hostname: string, port: number): Promise<readonly string[]>;
}

/** Resolves a host name to all its addresses (textual IPs). Injected by tests. */
export type ResolveHost = (hostname: string) => Promise<readonly string[]>;

export interface SsrfGuardOptions {
  /** `web.allow_private` entries. */
  readonly allowPrivate: readonly string[];
  readonly resolveHost?: ResolveHost;
}

const defaultResolveHost: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true })).map((entry) => entry.address);

const POLICY =
  'Loopback, private, link-local, carrier-grade NAT, multicast and reserved addresses are blocked; ' +
  'an operator can permit a specific target with web.allow_private.';
const METADATA_POLICY = 'Cloud metadata endpoints are always blocked.';

export function defaultPort(protocol: string): number {
  return protocol === 'https:' ? 443 : 80;
}

export function createSsrfGuard(options: SsrfGuardOptions): SsrfGuard {
  const allowList = createAllowList(options.allowPrivate);
  const resolveHost = options.resolveHost ?? defaultResolveHost;

  const refuse = (message: string): never => {
    throw new HermesError('ssrf_refused', message);
  };

  /** Throws unless this address may be reached on this port (`viaHost`: the host name is allowlisted). */
  const checkAddress = (ip: IpAddress, shown: string, port: number, viaHost: boolean, host: string) => {
    const verdict = classifyAddress(ip);
    if (verdict === undefined) return;
    const what = host === shown ? `${shown} is` : `it resolves to ${shown}, which is`;
    if (verdict.metadata) refuse(`refused ${host}: ${what} a cloud metadata address. ${METADATA_POLICY}`);
    if (viaHost || allowList.allowsAddress(ip, port)) return;
    const target = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    refuse(`refused ${target}: ${what} a ${verdict.label} address. ${POLICY}`);
  };

  return {
    checkUrl(url) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        refuse(`refused ${url.protocol}// URL: only http and https URLs can be fetched`);
      }
      if (url.username !== '' || url.password !== '') {
        refuse('refused a URL with embedded credentials (user:password@host)');
      }
      const hostname = url.hostname;
      if (hostname === '') refuse('refused a URL without a host');
      if (isMetadataHostName(hostname)) {
        refuse(`refused ${hostname}: it names a cloud metadata service. ${METADATA_POLICY}`);
      }
      const literal = parseIp(hostname);
      if (literal !== undefined) {
        checkAddress(literal, hostname, Number(url.port) || defaultPort(url.protocol), false, hostname);
      }
    },

    async resolveTarget(hostname, port) {
      const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
      const literal = parseIp(host);
      if (literal !== undefined) {
        checkAddress(literal, host, port, false, host);
        return [host];
      }
      if (isMetadataHostName(host))
        refuse(`refused ${host}: it names a cloud metadata service. ${METADATA_POLICY}`);
      let addresses: readonly string[];
      try {
        addresses = await resolveHost(host);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        throw new HermesError('fetch_failed', `cannot resolve host ${host} (${String(code ?? error)})`, {
          cause: error,
        });
      }
      if (addresses.length === 0) throw new HermesError('fetch_failed', `host ${host} has no addresses`);
      const viaHost = allowList.allowsHost(host, port);
      for (const address of addresses) {
        const ip = parseIp(address);
        if (ip === undefined)
          refuse(`refused ${host}: it resolved to '${address}', which is not an IP address`);
        else checkAddress(ip, address, port, viaHost, host);
      }
      return addresses;
    },
  };
}
