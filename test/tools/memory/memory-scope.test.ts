import { describe, expect, it } from 'vitest';
import { memoryScope, SCOPE_PATTERN } from '../../../src/tools/memory/memory-scope.js';

const key = 'agent:main:telegram:dm:1';

describe('memoryScope', () => {
  it('is <platform>.<user> for plain ids', () => {
    expect(memoryScope({ platform: 'telegram', userId: '12345', sessionKey: key })).toBe('telegram.12345');
    expect(memoryScope({ platform: 'api_server', userId: 'ou_ab-c', sessionKey: key })).toBe(
      'api_server.ou_ab-c',
    );
  });

  it('hashes ids that are not plain, keeping a readable slug', () => {
    const scope = memoryScope({ platform: 'discord', userId: 'Bob Smith', sessionKey: key });
    expect(scope).toMatch(/^discord\.bob_smith\.h[0-9a-f]{16}$/);
  });

  it('uses the session key when platform or user is missing', () => {
    const a = memoryScope({ platform: undefined, userId: '1', sessionKey: key });
    const b = memoryScope({ platform: 'telegram', userId: undefined, sessionKey: key });
    const c = memoryScope({ platform: 'telegram', userId: '', sessionKey: key });
    expect(a).toMatch(/^session\.agent_main_telegram_dm_1\.h[0-9a-f]{16}$/);
    expect(new Set([a, b, c]).size).toBe(1);
  });

  it('never collides across users, case, punctuation, or the session fallback', () => {
    const scopes = [
      memoryScope({ platform: 'session', userId: 'x', sessionKey: key }),
      memoryScope({ platform: undefined, userId: undefined, sessionKey: 'x' }),
      memoryScope({ platform: 'session', userId: 'x:y', sessionKey: key }),
      memoryScope({ platform: undefined, userId: undefined, sessionKey: 'x:y' }),
      memoryScope({ platform: 'a', userId: 'b.c', sessionKey: key }),
      memoryScope({ platform: 'a.b', userId: 'c', sessionKey: key }),
      memoryScope({ platform: 't', userId: 'Ab', sessionKey: key }),
      memoryScope({ platform: 't', userId: 'ab', sessionKey: key }),
      memoryScope({ platform: 't', userId: 'aB', sessionKey: key }),
    ];
    expect(new Set(scopes).size).toBe(scopes.length);
  });

  it('always yields one safe folder name of bounded length', () => {
    const samples = ['../../etc', '..', '.', '', '/', 'x'.repeat(5_000), '名前', '\u0000', 'a\\b'];
    for (const userId of samples) {
      for (const platform of ['telegram', '../..', 'X'.repeat(300)]) {
        const scope = memoryScope({ platform, userId, sessionKey: userId });
        expect(scope).toMatch(SCOPE_PATTERN);
        expect(scope.length).toBeLessThanOrEqual(120);
        expect(scope.split('.').every((part) => part !== '' && part !== '..')).toBe(true);
      }
    }
  });
});
