import { HermesError } from '../../errors/hermes-error.js';
import { type Cidr, cidrContains, type IpAddress, parseCidr, parseIp } from './ip-address.js';

/**
 * `web.allow_private`: the operator's exceptions to the SSRF guard. An entry is a host name
 * (`intranet.local`, `*.corp.example`), an IP address or CIDR (`10.1.2.3`, `10.0.0.0/8`, `fd00::/8`),
 * any of those but a CIDR optionally with `:port` (`127.0.0.1:8080`, `[::1]:8080`, `localhost:3000`),
 * which then opens that port only. Host-name entries trust whatever the name resolves to; address
 * entries are matched against the resolved addresses.
 */
export type AllowEntry =
  | { readonly kind: 'host'; readonly name: string; readonly wildcard: boolean; readonly port?: number }
  | { readonly kind: 'address'; readonly range: Cidr; readonly port?: number };

const HOST_NAME = /^(?:\*\.)?[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*$/;

export function parseAllowEntry(entry: string): AllowEntry {
  const text = entry.trim().toLowerCase();
  const invalid = (): never => {
    throw new HermesError(
      'config_invalid',
      `web.allow_private: '${entry}' is not a host name, IP address, CIDR or host:port`,
    );
  };
  if (text.includes('/')) {
    const range = parseCidr(text);
    return range === undefined ? invalid() : { kind: 'address', range };
  }
  const bare = parseIp(text);
  if (bare !== undefined) return { kind: 'address', range: single(bare) };
  let host = text;
  let port: number | undefined;
  const withPort = /^(.*):(\d{1,5})$/.exec(text);
  if (withPort !== null) {
    host = withPort[1] ?? '';
    port = Number.parseInt(withPort[2] ?? '', 10);
    if (port < 1 || port > 65_535) invalid();
  }
  const ip = parseIp(host);
  if (ip !== undefined) {
    return port === undefined
      ? { kind: 'address', range: single(ip) }
      : { kind: 'address', range: single(ip), port };
  }
  const name = host.replace(/\.+$/, '');
  if (!HOST_NAME.test(name)) invalid();
  const wildcard = name.startsWith('*.');
  const hostEntry = { kind: 'host' as const, name: wildcard ? name.slice(2) : name, wildcard };
  return port === undefined ? hostEntry : { ...hostEntry, port };
}

function single(ip: IpAddress): Cidr {
  return { family: ip.family, base: ip.value, prefix: ip.family === 4 ? 32 : 128 };
}

export interface AllowList {
  /** True when an entry names this host (and port). */
  allowsHost(hostname: string, port: number): boolean;
  /** True when an address entry covers this address (and port). */
  allowsAddress(ip: IpAddress, port: number): boolean;
}

export function createAllowList(entries: readonly string[]): AllowList {
  const parsed = entries.map(parseAllowEntry);
  const portMatches = (entry: AllowEntry, port: number) => entry.port === undefined || entry.port === port;
  return {
    allowsHost(hostname, port) {
      const name = hostname.toLowerCase().replace(/\.+$/, '');
      return parsed.some(
        (entry) =>
          entry.kind === 'host' &&
          portMatches(entry, port) &&
          (entry.wildcard ? name.endsWith(`.${entry.name}`) : name === entry.name),
      );
    },
    allowsAddress(ip, port) {
      return parsed.some(
        (entry) => entry.kind === 'address' && portMatches(entry, port) && cidrContains(entry.range, ip),
      );
    },
  };
}
