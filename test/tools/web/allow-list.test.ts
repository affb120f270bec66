import { describe, expect, it } from 'vitest';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import { createAllowList, parseAllowEntry } from '../../../src/tools/web/allow-list.js';
import { parseIp } from '../../../src/tools/web/ip-address.js';

const ip = (text: string) => parseIp(text)!;

describe('web.allow_private entries', () => {
  it('parses host names, wildcards, addresses, CIDRs and ports', () => {
    expect(parseAllowEntry('Intranet.Local.')).toEqual({
      kind: 'host',
      name: 'intranet.local',
      wildcard: false,
    });
    expect(parseAllowEntry('*.corp.example')).toEqual({ kind: 'host', name: 'corp.example', wildcard: true });
    expect(parseAllowEntry('localhost:3000')).toEqual({
      kind: 'host',
      name: 'localhost',
      wildcard: false,
      port: 3000,
    });
    expect(parseAllowEntry('10.0.0.0/8')).toMatchObject({ kind: 'address', range: { prefix: 8 } });
    expect(parseAllowEntry('127.0.0.1:8080')).toMatchObject({
      kind: 'address',
      port: 8080,
      range: { prefix: 32 },
    });
    expect(parseAllowEntry('[::1]:8080')).toMatchObject({
      kind: 'address',
      port: 8080,
      range: { prefix: 128 },
    });
    expect(parseAllowEntry('::1')).toMatchObject({ kind: 'address', range: { family: 6, prefix: 128 } });
  });

  it.each(['http://x', 'a b', '10.0.0.0/40', 'host:99999', '-bad-'])(
    'rejects %j with a config error',
    (entry) => {
      let caught: unknown;
      try {
        parseAllowEntry(entry);
      } catch (error) {
        caught = error;
      }
      expect(isHermesError(caught, 'config_invalid')).toBe(true);
      expect((caught as Error).message).toContain(entry);
    },
  );

  it('matches hosts and addresses, honouring ports', () => {
    const list = createAllowList([
      'localhost',
      '*.corp.example',
      '10.0.0.0/8',
      '127.0.0.1:8080',
      '[::1]:9000',
    ]);
    expect(list.allowsHost('LOCALHOST', 1)).toBe(true);
    expect(list.allowsHost('wiki.corp.example', 443)).toBe(true);
    expect(list.allowsHost('corp.example', 443)).toBe(false);
    expect(list.allowsHost('evilcorp.example', 443)).toBe(false);
    expect(list.allowsAddress(ip('10.9.9.9'), 80)).toBe(true);
    expect(list.allowsAddress(ip('127.0.0.1'), 8080)).toBe(true);
    expect(list.allowsAddress(ip('127.0.0.1'), 8081)).toBe(false);
    expect(list.allowsAddress(ip('::1'), 9000)).toBe(true);
    expect(list.allowsAddress(ip('::1'), 80)).toBe(false);
    expect(list.allowsAddress(ip('192.168.1.1'), 80)).toBe(false);
  });
});
