import { describe, expect, it } from 'vitest';
import { isHermesError } from '../../src/errors/hermes-error.js';
import {
  assertSessionId,
  assertSessionKey,
  buildSessionKey,
  isSafeToken,
  isValidSessionKey,
  newSessionId,
  parseSessionKey,
  type SessionKeyInput,
  sessionKeyHasPrefix,
} from '../../src/gateway/session-key.js';

function expectInvalid(work: () => unknown): void {
  let caught: unknown;
  try {
    work();
  } catch (error) {
    caught = error;
  }
  expect(isHermesError(caught, 'session_key_invalid'), String(caught)).toBe(true);
}

describe('buildSessionKey', () => {
  const cases: [string, SessionKeyInput, string][] = [
    [
      'Telegram DM',
      { platform: 'telegram', chatType: 'dm', chatId: '123456', userId: '123456' },
      'agent:main:telegram:dm:123456',
    ],
    [
      'Telegram forum topic 1 of group -100999 (threads shared)',
      { platform: 'telegram', chatType: 'group', chatId: '-100999', threadId: '1', userId: '42' },
      'agent:main:telegram:group:-100999:1',
    ],
    [
      'Discord channel without thread, user 42',
      { platform: 'discord', chatType: 'group', chatId: '1100220033', userId: '42' },
      'agent:main:discord:group:1100220033:42',
    ],
    [
      'group shared when perUserInGroups is off',
      { platform: 'discord', chatType: 'group', chatId: '77', userId: '42', perUserInGroups: false },
      'agent:main:discord:group:77',
    ],
    [
      'thread per user when perUserInThreads is on',
      {
        platform: 'telegram',
        chatType: 'group',
        chatId: '-100999',
        threadId: '5',
        userId: '42',
        perUserInThreads: true,
      },
      'agent:main:telegram:group:-100999:5:42',
    ],
    [
      'a thread chat type is a thread (shared by default)',
      { platform: 'discord', chatType: 'thread', chatId: '9988', userId: '42' },
      'agent:main:discord:thread:9988',
    ],
    [
      'DM with a thread',
      { platform: 'feishu', chatType: 'dm', chatId: 'oc_abc123', threadId: 'omt_77', userId: 'ou_1' },
      'agent:main:feishu:dm:oc_abc123:omt_77',
    ],
    [
      'channel with user',
      { platform: 'discord', chatType: 'channel', chatId: '5', userId: '6' },
      'agent:main:discord:channel:5:6',
    ],
    [
      'webhook delivery (compound ids)',
      {
        platform: 'webhook',
        chatType: 'webhook',
        chatId: 'webhook:github:3f2a-11ee',
        userId: 'webhook:github',
      },
      'agent:main:webhook:webhook:webhook:github:3f2a-11ee:webhook:github',
    ],
    [
      'other profile namespace',
      { platform: 'telegram', chatType: 'dm', chatId: '1', namespace: 'work' },
      'agent:work:telegram:dm:1',
    ],
    [
      'profile literally named main',
      { platform: 'telegram', chatType: 'dm', chatId: '1', namespace: 'main~' },
      'agent:main~:telegram:dm:1',
    ],
    [
      'empty optional parts are ignored',
      { platform: 'telegram', chatType: 'group', chatId: '-5', threadId: '', userId: '' },
      'agent:main:telegram:group:-5',
    ],
  ];

  it.each(cases)('%s', (_name, input, expected) => {
    const key = buildSessionKey(input);
    expect(key).toBe(expected);
    expect(isValidSessionKey(key)).toBe(true);
  });

  const hostile: [string, Partial<SessionKeyInput>][] = [
    ['dot-dot chat id', { chatId: '..' }],
    ['dot-dot inside a token', { chatId: 'a..b' }],
    ['single dot', { chatId: '.' }],
    ['slash', { chatId: '../../etc/passwd' }],
    ['forward slash alone', { chatId: 'a/b' }],
    ['backslash', { chatId: 'a\\b' }],
    ['NUL byte', { chatId: 'a\u0000b' }],
    ['newline', { userId: '42\nagent:main' }],
    ['tab', { threadId: '1\t2' }],
    ['drive letter', { chatId: 'C:\\Windows' }],
    ['drive-letter compound', { chatId: 'c:foo' }],
    ['empty chat id', { chatId: '' }],
    ['empty compound part', { chatId: 'webhook::1' }],
    ['trailing colon', { userId: '42:' }],
    ['space', { chatId: 'a b' }],
    ['non-ASCII', { chatId: 'ｃｈａｔ' }],
    ['overlong token', { chatId: 'x'.repeat(129) }],
    ['uppercase platform', { platform: 'Telegram' }],
    ['platform with colon', { platform: 'tele:gram' }],
    ['bad namespace', { namespace: '../x' }],
    ['unknown chat type', { chatType: 'private' as SessionKeyInput['chatType'] }],
  ];

  it.each(hostile)('rejects %s', (_name, patch) => {
    expectInvalid(() =>
      buildSessionKey({ platform: 'telegram', chatType: 'group', chatId: '1', userId: '2', ...patch }),
    );
  });

  it('rejects a key longer than the bound', () => {
    const long = Array.from({ length: 6 }, () => 'x'.repeat(100)).join(':');
    expectInvalid(() => buildSessionKey({ platform: 'webhook', chatType: 'webhook', chatId: long }));
  });

  it('error messages do not echo control characters', () => {
    expect(() =>
      buildSessionKey({ platform: 'telegram', chatType: 'dm', chatId: 'a\u0000\u001b[31mb' }),
    ).toThrow(/^chat id "a\?\?\[31mb" is not a safe token/);
  });
});

describe('parseSessionKey', () => {
  it('splits a valid key', () => {
    expect(parseSessionKey('agent:main:telegram:group:-100999:1')).toEqual({
      namespace: 'main',
      platform: 'telegram',
      chatType: 'group',
      rest: ['-100999', '1'],
    });
  });

  it('round-trips what buildSessionKey makes', () => {
    const key = buildSessionKey({ platform: 'discord', chatType: 'group', chatId: '7', userId: '8' });
    expect(parseSessionKey(key)).toMatchObject({ platform: 'discord', chatType: 'group', rest: ['7', '8'] });
    expect(assertSessionKey(key)).toBe(key);
  });

  it.each([
    ['empty', ''],
    ['wrong head', 'session:main:telegram:dm:1'],
    ['no chat id', 'agent:main:telegram:dm'],
    ['empty component', 'agent:main:telegram:dm::1'],
    ['dot-dot', 'agent:main:telegram:dm:..'],
    ['path', 'agent:main:telegram:dm:../../x'],
    ['backslash', 'agent:main:telegram:dm:..\\x'],
    ['NUL', 'agent:main:telegram:dm:1\u0000'],
    ['unknown chat type', 'agent:main:telegram:private:1'],
    ['bad platform', 'agent:main:TG:dm:1'],
    ['too long', `agent:main:telegram:dm:${'1:'.repeat(300)}1`],
  ])('rejects %s', (_name, key) => {
    expectInvalid(() => parseSessionKey(key));
    expect(isValidSessionKey(key)).toBe(false);
  });
});

describe('tokens, prefixes and session ids', () => {
  it('accepts platform ids of every adapter', () => {
    for (const token of [
      '-1001234567890',
      '1100220033',
      'oc_5ad11d7',
      'ou_7d8a6e',
      'on_xyz',
      'a.b@c+d=e~f',
    ]) {
      expect(isSafeToken(token), token).toBe(true);
    }
  });

  it('matches prefixes on component boundaries only', () => {
    expect(sessionKeyHasPrefix('agent:main:telegram:dm:12', 'agent:main:telegram:dm:12')).toBe(true);
    expect(sessionKeyHasPrefix('agent:main:telegram:dm:12:5', 'agent:main:telegram:dm:12')).toBe(true);
    expect(sessionKeyHasPrefix('agent:main:telegram:dm:123', 'agent:main:telegram:dm:12')).toBe(false);
    expect(sessionKeyHasPrefix('agent:main:telegram:dm:123', 'agent:main:telegram:')).toBe(true);
  });

  it('makes unique, URL-safe, valid session ids that sort in the order they were made', () => {
    const made = Array.from({ length: 200 }, () => newSessionId());
    expect(new Set(made).size).toBe(200);
    for (const id of made) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(assertSessionId(id)).toBe(id);
      expect(encodeURIComponent(id)).toBe(id);
    }
    // Time-ordered, so the store's session-id indexes grow at their end (UUIDv7).
    expect([...made].sort()).toEqual(made);
  });

  it.each([
    '',
    'short',
    '../../../etc',
    'a/b/c/d/e/f',
    'C:\\temp\\xx',
    'x'.repeat(65),
    'abc\u0000defgh',
    'abcd.efgh',
  ])('rejects session id %j', (id) => {
    expectInvalid(() => assertSessionId(id));
  });
});
