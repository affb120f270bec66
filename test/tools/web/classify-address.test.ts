import { describe, expect, it } from 'vitest';
import { classifyAddress, isMetadataHostName } from '../../../src/tools/web/classify-address.js';
import { parseIp } from '../../../src/tools/web/ip-address.js';

const verdict = (text: string) => classifyAddress(parseIp(text)!);

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.10', 'private'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'shared carrier-grade NAT'],
    ['100.127.255.255', 'shared carrier-grade NAT'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved (incl. broadcast)'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique-local (private)'],
    ['fd12:3456::1', 'unique-local (private)'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:192.168.1.1', 'IPv4-mapped private'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['64:ff9b::a00:1', 'NAT64 private'],
    ['2002:7f00:1::', '6to4 loopback'],
  ])('%s is %s', (address, label) => {
    expect(verdict(address)).toEqual({ label, metadata: false });
  });

  it.each(['169.254.169.254', '100.100.100.200', 'fd00:ec2::254', '::ffff:169.254.169.254', '169.254.170.2'])(
    '%s is a cloud metadata address',
    (address) => {
      expect(verdict(address)?.metadata).toBe(true);
    },
  );

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
  ])('%s is public', (address) => {
    expect(verdict(address)).toBeUndefined();
  });
});

describe('isMetadataHostName', () => {
  it.each(['metadata.google.internal', 'METADATA.GOOGLE.INTERNAL.', 'metadata', 'instance-data'])(
    '%s',
    (name) => {
      expect(isMetadataHostName(name)).toBe(true);
    },
  );

  it('leaves ordinary names alone', () => {
    expect(isMetadataHostName('metadata.example.com')).toBe(false);
    expect(isMetadataHostName('example.com')).toBe(false);
  });
});
