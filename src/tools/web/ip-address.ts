import { isIPv4, isIPv6 } from 'node:net';

/**
 * IP addresses as integers, so ranges are plain comparisons: IPv4 in 32 bits, IPv6 in 128 bits.
 * Parsing goes through `node:net`'s validators first, so only canonical textual forms get here.
 */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly value: bigint;
}

export interface Cidr {
  readonly family: 4 | 6;
  readonly base: bigint;
  readonly prefix: number;
}

const BITS = { 4: 32, 6: 128 } as const;

/** Parses an IPv4 or IPv6 literal (brackets and an IPv6 zone id are tolerated); undefined otherwise. */
export function parseIp(text: string): IpAddress | undefined {
  let candidate = text.trim();
  if (candidate.startsWith('[') && candidate.endsWith(']')) candidate = candidate.slice(1, -1);
  const zone = candidate.indexOf('%');
  if (zone !== -1 && isIPv6(candidate)) candidate = candidate.slice(0, zone);
  if (isIPv4(candidate)) return { family: 4, value: parseIpv4(candidate) };
  if (isIPv6(candidate)) return { family: 6, value: parseIpv6(candidate) };
  return undefined;
}

function parseIpv4(text: string): bigint {
  return text.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number.parseInt(octet, 10)), 0n);
}

function parseIpv6(text: string): bigint {
  let body = text;
  let tail: number[] = [];
  // A trailing dotted quad (::ffff:1.2.3.4) stands for the last two groups.
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = parseIpv4(last);
    tail = [Number(v4 >> 16n), Number(v4 & 0xffffn)];
    body = text.slice(0, lastColon + 1);
    if (!body.endsWith('::')) body = body.slice(0, -1);
  }
  const split = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const gap = body.indexOf('::');
  const head = split(gap === -1 ? body : body.slice(0, gap));
  const rest = gap === -1 ? [] : split(body.slice(gap + 2));
  const zeros = new Array<number>(8 - head.length - rest.length - tail.length).fill(0);
  return [...head, ...zeros, ...rest, ...tail].reduce((acc, group) => (acc << 16n) | BigInt(group), 0n);
}

/** `10.0.0.0/8`, `fd00::/8`, or a bare address (a /32 or /128). Undefined when malformed. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  const ip = parseIp(slash === -1 ? text : text.slice(0, slash));
  if (ip === undefined) return undefined;
  const max: number = BITS[ip.family];
  let prefix = max;
  if (slash !== -1) {
    const prefixText = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(prefixText)) return undefined;
    prefix = Number.parseInt(prefixText, 10);
    if (prefix > max) return undefined;
  }
  return { family: ip.family, base: ip.value & mask(ip.family, prefix), prefix };
}

function mask(family: 4 | 6, prefix: number): bigint {
  const max = BigInt(BITS[family]);
  const all = (1n << max) - 1n;
  return (all >> (max - BigInt(prefix))) << (max - BigInt(prefix));
}

export function cidrContains(cidr: Cidr, ip: IpAddress): boolean {
  return cidr.family === ip.family && (ip.value & mask(ip.family, cidr.prefix)) === cidr.base;
}

/** Builds a CIDR from literal text known to be valid (the built-in tables); throws otherwise. */
export function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (parsed === undefined) throw new Error(`invalid built-in CIDR ${text}`);
  return parsed;
}

/** The IPv4 address held in the low 32 bits of an IPv6 address. */
export function embeddedIpv4(ip: IpAddress, shift = 0n): IpAddress {
  return { family: 4, value: (ip.value >> shift) & 0xffff_ffffn };
}
