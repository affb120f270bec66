import { describe, expect, it } from 'vitest';
import { cidrContains, parseCidr, parseIp } from '../../../src/tools/web/ip-address.js';

describe('parseIp', () => {
  it.each([
    ['127.0.0.1', 4, 0x7f000001n],
    ['255.255.255.255', 4, 0xffffffffn],
    ['::1', 6, 1n],
    ['::', 6, 0n],
    ['[::1]', 6, 1n],
    ['fe80::1%eth0', 6, (0xfe80n << 112n) | 1n],
    ['::ffff:127.0.0.1', 6, 0xffff7f000001n],
    ['::ffff:7f00:1', 6, 0xffff7f000001n],
    ['1:2:3:4:5:6:1.2.3.4', 6, 0x0001000200030004000500060102_0304n],
    ['2001:db8::8:800:200c:417a', 6, 0x20010db8000000000008_0800200c417an],
  ])('%s', (text, family, value) => {
    expect(parseIp(text)).toEqual({ family, value });
  });

  it.each(['', 'localhost', '1.2.3', '256.1.1.1', '::g', '1.2.3.4.5', 'example.com'])(
    'rejects %j',
    (text) => {
      expect(parseIp(text)).toBeUndefined();
    },
  );
});

describe('parseCidr / cidrContains', () => {
  it('matches addresses inside the range only', () => {
    const range = parseCidr('10.0.0.0/8')!;
    expect(cidrContains(range, parseIp('10.255.1.2')!)).toBe(true);
    expect(cidrContains(range, parseIp('11.0.0.1')!)).toBe(false);
    expect(cidrContains(range, parseIp('::ffff:10.0.0.1')!)).toBe(false);
  });

  it('normalises the base and handles IPv6 and /0', () => {
    expect(parseCidr('192.168.1.77/24')).toEqual({ family: 4, base: 0xc0a80100n, prefix: 24 });
    expect(cidrContains(parseCidr('fc00::/7')!, parseIp('fd00:ec2::254')!)).toBe(true);
    expect(cidrContains(parseCidr('0.0.0.0/0')!, parseIp('8.8.8.8')!)).toBe(true);
  });

  it.each(['10.0.0.0/33', '::/129', '10.0.0.0/x', 'host/8', '10.0.0.0/'])('rejects %j', (text) => {
    expect(parseCidr(text)).toBeUndefined();
  });
});
