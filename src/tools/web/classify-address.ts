import { type Cidr, cidr, cidrContains, embeddedIpv4, type IpAddress } from './ip-address.js';

/**
 * Which addresses the web tools must not reach. An address that is not public gets a label saying
 * why; public addresses get `undefined`. Cloud metadata endpoints are labelled separately because
 * no allowlist entry can open them.
 */
export interface AddressVerdict {
  readonly label: string;
  /** A cloud metadata endpoint: refused even when `web.allow_private` covers it. */
  readonly metadata: boolean;
}

const METADATA_ADDRESSES: readonly Cidr[] = [
  cidr('169.254.169.254'), // AWS, GCP, Azure, OpenStack, Oracle
  cidr('169.254.170.2'), // AWS ECS task metadata
  cidr('169.254.169.253'), // AWS VPC DNS
  cidr('100.100.100.200'), // Alibaba Cloud
  cidr('192.0.0.192'), // Oracle Cloud (classic)
  cidr('fd00:ec2::254'), // AWS IMDS over IPv6
];

const IPV4_RULES: readonly (readonly [Cidr, string])[] = [
  [cidr('0.0.0.0/8'), 'unspecified ("this network")'],
  [cidr('10.0.0.0/8'), 'private'],
  [cidr('100.64.0.0/10'), 'shared carrier-grade NAT'],
  [cidr('127.0.0.0/8'), 'loopback'],
  [cidr('169.254.0.0/16'), 'link-local'],
  [cidr('172.16.0.0/12'), 'private'],
  [cidr('192.0.0.0/24'), 'IETF protocol assignment'],
  [cidr('192.0.2.0/24'), 'documentation'],
  [cidr('192.88.99.0/24'), '6to4 relay anycast'],
  [cidr('192.168.0.0/16'), 'private'],
  [cidr('198.18.0.0/15'), 'benchmarking'],
  [cidr('198.51.100.0/24'), 'documentation'],
  [cidr('203.0.113.0/24'), 'documentation'],
  [cidr('224.0.0.0/4'), 'multicast'],
  [cidr('240.0.0.0/4'), 'reserved (incl. broadcast)'],
];

const IPV6_RULES: readonly (readonly [Cidr, string])[] = [
  [cidr('::/128'), 'unspecified'],
  [cidr('::1/128'), 'loopback'],
  [cidr('64:ff9b:1::/48'), 'local-use NAT64'],
  [cidr('100::/64'), 'discard-only'],
  [cidr('2001::/23'), 'IETF protocol assignment'],
  [cidr('2001:db8::/32'), 'documentation'],
  [cidr('fc00::/7'), 'unique-local (private)'],
  [cidr('fe80::/10'), 'link-local'],
  [cidr('fec0::/10'), 'site-local (deprecated)'],
  [cidr('ff00::/8'), 'multicast'],
];

/** IPv6 prefixes that carry an IPv4 address, and where it sits. */
const IPV4_CARRIERS: readonly (readonly [Cidr, bigint, string])[] = [
  [cidr('::ffff:0:0/96'), 0n, 'IPv4-mapped'],
  [cidr('::/96'), 0n, 'IPv4-compatible'],
  [cidr('64:ff9b::/96'), 0n, 'NAT64'],
  [cidr('2002::/16'), 80n, '6to4'],
];

export function classifyAddress(ip: IpAddress): AddressVerdict | undefined {
  if (METADATA_ADDRESSES.some((range) => cidrContains(range, ip))) {
    return { label: 'cloud metadata', metadata: true };
  }
  if (ip.family === 4) {
    const rule = IPV4_RULES.find(([range]) => cidrContains(range, ip));
    return rule === undefined ? undefined : { label: rule[1], metadata: false };
  }
  const rule = IPV6_RULES.find(([range]) => cidrContains(range, ip));
  if (rule !== undefined) return { label: rule[1], metadata: false };
  for (const [range, shift, name] of IPV4_CARRIERS) {
    if (!cidrContains(range, ip)) continue;
    const inner = classifyAddress(embeddedIpv4(ip, shift));
    // An embedded address is judged like the IPv4 address it stands for.
    return inner === undefined ? undefined : { label: `${name} ${inner.label}`, metadata: inner.metadata };
  }
  return undefined;
}

/** Host names that lead to instance metadata services whatever they resolve to. */
const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.internal',
  'instance-data',
  'instance-data.ec2.internal',
]);

export function isMetadataHostName(hostname: string): boolean {
  return METADATA_HOSTS.has(hostname.toLowerCase().replace(/\.+$/, ''));
}
