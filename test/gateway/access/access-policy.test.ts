import { describe, expect, it } from 'vitest';
import {
  parseUserEntry,
  resolvePlatformAccess,
  wildcardEntries,
} from '../../../src/gateway/access/access-policy.js';
import { accessConfig } from './access-test-kit.js';

describe('parseUserEntry', () => {
  it('reads bare ids and platform-prefixed ids', () => {
    expect(parseUserEntry('42')).toEqual({ platform: undefined, userId: '42' });
    expect(parseUserEntry(' telegram:42 ')).toEqual({ platform: 'telegram', userId: '42' });
    expect(parseUserEntry('Discord:7')).toEqual({ platform: 'discord', userId: '7' });
    expect(parseUserEntry('test:ou_abc')).toEqual({ platform: 'test', userId: 'ou_abc' });
  });

  it('keeps ids whose colon is not after a platform word bare', () => {
    expect(parseUserEntry('@alice:matrix.org')).toEqual({ platform: undefined, userId: '@alice:matrix.org' });
    expect(parseUserEntry(':42')).toEqual({ platform: undefined, userId: ':42' });
    expect(parseUserEntry('telegram:')).toEqual({ platform: undefined, userId: 'telegram:' });
  });
});

describe('resolvePlatformAccess', () => {
  it('merges the platform list with the gateway entries that apply', () => {
    const config = accessConfig({
      gateway: { allowed_users: ['1', 'telegram:2', 'discord:3'], admin_users: ['telegram:9'] },
      platforms: { telegram: { allowed_users: ['4'], admin_users: ['8'] } },
    });
    const telegram = resolvePlatformAccess(config, 'telegram');
    expect([...telegram.allowedUsers].sort()).toEqual(['1', '2', '4']);
    expect([...telegram.adminUsers].sort()).toEqual(['8', '9']);
    expect(telegram.hasAllowlist).toBe(true);
    expect(telegram.pairingEnabled).toBe(false);
    const test = resolvePlatformAccess(config, 'test');
    expect([...test.allowedUsers]).toEqual(['1']);
    expect(test.adminUsers.size).toBe(0);
    expect(test.allowAll).toBe(false);
    expect(test.unknownUsers).toBe('auto');
  });

  it('decides when pairing is offered', () => {
    const pairing = (input: Parameters<typeof accessConfig>[0], platform = 'telegram') =>
      resolvePlatformAccess(accessConfig(input), platform).pairingEnabled;
    expect(pairing({})).toBe(true);
    expect(pairing({}, 'test')).toBe(true);
    expect(pairing({ platforms: { telegram: { allowed_users: ['1'] } } })).toBe(false);
    expect(pairing({ gateway: { allowed_users: ['1'] } })).toBe(false);
    expect(pairing({ gateway: { allowed_users: ['telegram:1'] } })).toBe(false);
    expect(pairing({ gateway: { allowed_users: ['discord:1'] } })).toBe(true);
    expect(pairing({ gateway: { allowed_users: ['test:1'] } }, 'test')).toBe(false);
    expect(pairing({ platforms: { telegram: { admin_users: ['1'] } } })).toBe(true);
    expect(pairing({ platforms: { telegram: { allowed_users: ['1'], unknown_users: 'pair' } } })).toBe(true);
    expect(pairing({ platforms: { telegram: { unknown_users: 'ignore' } } })).toBe(false);
    expect(pairing({ platforms: { telegram: { allow_all: true, unknown_users: 'pair' } } })).toBe(false);
  });

  it('opens every platform with gateway.allow_all (GATEWAY_ALLOW_ALL_USERS), one with its own allow_all', () => {
    const open = (input: Parameters<typeof accessConfig>[0], platform: string) =>
      resolvePlatformAccess(accessConfig(input), platform).allowAll;
    expect(open({ gateway: { allow_all: true } }, 'telegram')).toBe(true);
    expect(open({ gateway: { allow_all: true } }, 'test')).toBe(true);
    expect(open({ platforms: { telegram: { allow_all: true } } }, 'telegram')).toBe(true);
    expect(open({ platforms: { telegram: { allow_all: true } } }, 'discord')).toBe(false);
    expect(open({}, 'telegram')).toBe(false);
    expect(
      resolvePlatformAccess(accessConfig({ gateway: { allow_all: true } }), 'feishu').pairingEnabled,
    ).toBe(false);
  });

  it('finds wildcard entries so the caller can warn about them', () => {
    expect(wildcardEntries(accessConfig({ gateway: { allowed_users: ['1', 'telegram:*'] } }))).toEqual([
      'telegram:*',
    ]);
    expect(wildcardEntries(accessConfig({ platforms: { discord: { allowed_users: ['*'] } } }))).toEqual([
      '*',
    ]);
    expect(wildcardEntries(accessConfig({}))).toEqual([]);
  });
});
