import { afterEach, describe, expect, it } from 'vitest';
import { PAIRING_CODE_ALPHABET } from '../../../src/gateway/access/pairing-code.js';
import { type AccessKit, accessKit, codeIn, inbound, MINUTE } from './access-test-kit.js';

const kits: AccessKit[] = [];
function kit(...args: Parameters<typeof accessKit>): AccessKit {
  const created = accessKit(...args);
  kits.push(created);
  return created;
}

afterEach(async () => {
  for (const created of kits.splice(0)) await created.close();
});

describe('allowlists and admins', () => {
  it('denies by default when an allowlist exists, without a reply', async () => {
    const { access, store } = kit({ platforms: { telegram: { allowed_users: ['42'] } } });
    expect(await access.check(inbound('7', { platform: 'telegram' }))).toEqual({
      decision: 'ignore',
      reason: 'not_allowed',
    });
    expect(await store.listPairingCodes()).toEqual([]);
  });

  it('lets in users of the platform allowlist, on that platform only', async () => {
    const { access } = kit({ platforms: { telegram: { allowed_users: ['42'] } } });
    expect(await access.check(inbound('42', { platform: 'telegram' }))).toEqual({
      decision: 'allow',
      isAdmin: false,
      via: 'allowlist',
    });
    const elsewhere = await access.check(inbound('42', { platform: 'discord' }));
    expect(elsewhere.decision).not.toBe('allow');
  });

  it('applies bare gateway entries to every platform and prefixed ones to theirs', async () => {
    const { access } = kit({ gateway: { allowed_users: ['5', 'test:42', 'Telegram:43'] } });
    for (const platform of ['test', 'telegram', 'discord', 'feishu']) {
      expect((await access.check(inbound('5', { platform }))).decision).toBe('allow');
    }
    expect((await access.check(inbound('42', { platform: 'test' }))).decision).toBe('allow');
    expect((await access.check(inbound('42', { platform: 'telegram' }))).decision).toBe('ignore');
    expect((await access.check(inbound('43', { platform: 'telegram' }))).decision).toBe('allow');
    expect((await access.check(inbound('43', { platform: 'test' }))).decision).toBe('ignore');
  });

  it('lets everyone in with allow_all, and never pairs there', async () => {
    const { access, store } = kit({ platforms: { discord: { allow_all: true, unknown_users: 'pair' } } });
    expect(await access.check(inbound('anyone', { platform: 'discord', chatType: 'group' }))).toEqual({
      decision: 'allow',
      isAdmin: false,
      via: 'allow_all',
    });
    expect(await store.listPairingCodes()).toEqual([]);
  });

  it('always lets admins in and reports them', async () => {
    const { access } = kit({
      gateway: { allowed_users: ['telegram:1'], admin_users: ['telegram:9', '77'] },
      platforms: { telegram: { admin_users: ['8'] } },
    });
    for (const admin of ['8', '9', '77']) {
      expect(await access.check(inbound(admin, { platform: 'telegram', chatType: 'group' }))).toEqual({
        decision: 'allow',
        isAdmin: true,
        via: 'admin',
      });
      expect(access.isAdmin('telegram', admin)).toBe(true);
    }
    expect(access.isAdmin('test', '77')).toBe(true);
    expect(access.isAdmin('test', '9')).toBe(false);
    expect(access.isAdmin('discord', '8')).toBe(false);
    expect(access.isAdmin('telegram', '1')).toBe(false);
    expect(await access.check(inbound('1', { platform: 'telegram' }))).toMatchObject({ isAdmin: false });
  });

  it('lets allowed users talk in groups and press buttons', async () => {
    const { access } = kit({ gateway: { allowed_users: ['test:42'] } });
    expect((await access.check(inbound('42', { chatType: 'group' }))).decision).toBe('allow');
    expect((await access.check(inbound('42', { kind: 'action' }))).decision).toBe('allow');
  });
});

describe('unknown users', () => {
  it('ignores unknown users outside DMs, even where pairing is on', async () => {
    const { access, store } = kit();
    for (const chatType of ['group', 'channel', 'thread'] as const) {
      expect(await access.check(inbound('7', { chatType }))).toEqual({
        decision: 'ignore',
        reason: 'not_direct',
      });
    }
    expect(await store.listPairingCodes()).toEqual([]);
  });

  it('ignores button presses and other bots', async () => {
    const { access, store } = kit();
    expect(await access.check(inbound('7', { kind: 'action' }))).toEqual({
      decision: 'ignore',
      reason: 'action',
    });
    expect(await access.check(inbound('8', { isBot: true }))).toEqual({ decision: 'ignore', reason: 'bot' });
    expect(await store.listPairingCodes()).toEqual([]);
  });

  it('lets another bot in only by its own id or role, never by allow-all (nor pairing)', async () => {
    const { access, store } = kit({
      gateway: { allow_all: true },
      platforms: { discord: { allowed_users: ['81'], allowed_roles: ['900'] } },
    });
    const bot = (id: string, roles?: string[]) => ({
      ...inbound(id, { isBot: true, platform: 'discord' }),
      sender: { userId: id, isBot: true, ...(roles !== undefined ? { roles } : {}) },
    });
    expect(await access.check(bot('80'))).toEqual({ decision: 'ignore', reason: 'bot' });
    expect(await access.check(bot('81'))).toMatchObject({ decision: 'allow', via: 'allowlist' });
    expect(await access.check(bot('82', ['900']))).toMatchObject({ decision: 'allow', via: 'allowlist' });
    expect(await store.listPairingCodes()).toEqual([]);
  });

  it('lets members of an allowed role in, and a role allowlist silences pairing like a user list', async () => {
    const { access } = kit({ platforms: { discord: { allowed_roles: ['900'] } } });
    const member = (roles: string[]) => ({
      ...inbound('70', { platform: 'discord' }),
      sender: { userId: '70', roles },
    });
    expect(await access.check(member(['5', '900']))).toMatchObject({ decision: 'allow', via: 'allowlist' });
    expect(await access.check(member(['5']))).toEqual({ decision: 'ignore', reason: 'not_allowed' });
    expect(access.policy('discord')).toMatchObject({ hasAllowlist: true, pairingEnabled: false });
  });

  it.each([
    ['no allowlist (auto)', {}, 'telegram', 'pair'],
    ['no section: the test platform', {}, 'test', 'pair'],
    [
      'a platform allowlist (auto)',
      { platforms: { telegram: { allowed_users: ['1'] } } },
      'telegram',
      'ignore',
    ],
    ['a bare gateway entry (auto)', { gateway: { allowed_users: ['1'] } }, 'telegram', 'ignore'],
    ['a gateway entry for the platform', { gateway: { allowed_users: ['test:1'] } }, 'test', 'ignore'],
    [
      'a gateway entry for another platform',
      { gateway: { allowed_users: ['discord:1'] } },
      'telegram',
      'pair',
    ],
    ['only admins configured', { platforms: { telegram: { admin_users: ['1'] } } }, 'telegram', 'pair'],
    [
      'an allowlist and unknown_users: pair',
      { platforms: { telegram: { allowed_users: ['1'], unknown_users: 'pair' as const } } },
      'telegram',
      'pair',
    ],
    [
      'unknown_users: ignore',
      { platforms: { telegram: { unknown_users: 'ignore' as const } } },
      'telegram',
      'ignore',
    ],
  ])('with %s an unknown DM gets: %s', async (_name, input, platform, expected) => {
    const { access, store } = kit(input);
    const decision = await access.check(inbound('7', { platform }));
    expect(decision.decision).toBe(expected);
    expect((await store.listPairingCodes()).length).toBe(expected === 'pair' ? 1 : 0);
  });

  it('offers pairing for a command (Telegram /start) too', async () => {
    const { access } = kit();
    const decision = await access.check(inbound('7', { kind: 'command' }));
    expect(decision).toMatchObject({ decision: 'pair', pairing: 'issued' });
  });
});

describe('pairing', () => {
  it('issues a code and says how the owner approves it', async () => {
    const { access, store } = kit();
    const decision = await access.check(inbound('7', { platform: 'telegram', userName: 'alice' }));
    if (decision.decision !== 'pair') throw new Error(`expected pair, got ${decision.decision}`);
    expect(decision.pairing).toBe('issued');
    const code = codeIn(decision.reply);
    expect(code).toMatch(new RegExp(`^[${PAIRING_CODE_ALPHABET}]{8}$`));
    expect(decision.reply).toContain(`hermes-gateway pairing approve telegram ${code}`);
    expect(decision.reply).toContain(`/pair ${code}`);
    expect(decision.reply).toContain('60 minutes');
    expect(await store.listPairingCodes('telegram')).toEqual([
      expect.objectContaining({ code, userId: '7', userName: 'alice', expiresAt: expect.any(Number) }),
    ]);
  });

  it('approval (any case) lets the user in; revoking shuts them out again', async () => {
    const { access, advance } = kit();
    const code = codeIn(((await access.check(inbound('7'))) as { reply: string }).reply);
    const approved = await access.approveCode('test', code.toLowerCase(), 'test:99');
    expect(approved).toMatchObject({ platform: 'test', userId: '7', approvedBy: 'test:99' });
    expect(await access.check(inbound('7'))).toEqual({ decision: 'allow', isAdmin: false, via: 'paired' });
    expect(await access.check(inbound('7', { chatType: 'group' }))).toMatchObject({ decision: 'allow' });
    expect(await access.listPending()).toEqual([]);
    expect(await access.listPaired('test')).toEqual([expect.objectContaining({ userId: '7' })]);
    expect(await access.approveCode('test', code, 'test:99')).toBeUndefined();

    expect(await access.revoke('test', '7')).toBe(true);
    expect(await access.revoke('test', '7')).toBe(false);
    expect(await access.check(inbound('7', { chatType: 'group' }))).toEqual({
      decision: 'ignore',
      reason: 'not_direct',
    });
    advance(10 * MINUTE);
    expect(await access.check(inbound('7'))).toMatchObject({ decision: 'pair', pairing: 'issued' });
  });

  it('does not approve a code of another platform or a malformed one', async () => {
    const { access } = kit();
    const code = codeIn(((await access.check(inbound('7'))) as { reply: string }).reply);
    expect(await access.approveCode('telegram', code, 'cli')).toBeUndefined();
    expect(await access.approveCode('test', 'nope!', 'cli')).toBeUndefined();
    expect(await access.listPending('test')).toHaveLength(1);
  });

  it('hands the same code back to a user who asks again, and issues no new one', async () => {
    const { access, advance } = kit();
    const code = codeIn(((await access.check(inbound('7'))) as { reply: string }).reply);
    advance(5 * MINUTE);
    const again = await access.check(inbound('7'));
    expect(again).toMatchObject({ decision: 'pair', pairing: 'repeated' });
    expect(codeIn((again as { reply: string }).reply)).toBe(code);
    expect((again as { reply: string }).reply).toContain('55 minutes');
    advance(40 * MINUTE);
    expect(await access.check(inbound('7'))).toMatchObject({ pairing: 'repeated' });
    expect(await access.listPending()).toHaveLength(1);
  });

  it('gives a user at most one new code per 10 minutes, even after the codes were cleared', async () => {
    const { access, store, advance } = kit();
    await access.check(inbound('7'));
    advance(4 * MINUTE);
    await store.clearPairingCodes();
    const limited = await access.check(inbound('7'));
    expect(limited).toMatchObject({ decision: 'pair', pairing: 'rate_limited' });
    expect((limited as { reply: string }).reply).toContain('try again in 6 minutes');
    expect((limited as { reply: string }).reply).not.toMatch(/[A-Z0-9]{8}/);
    expect(await store.listPairingCodes()).toEqual([]);
    advance(6 * MINUTE);
    expect(await access.check(inbound('7'))).toMatchObject({ pairing: 'issued' });
  });

  it('keeps at most 3 codes pending per platform', async () => {
    const { access, store, advance } = kit();
    for (const user of ['1', '2', '3']) {
      expect(await access.check(inbound(user))).toMatchObject({ pairing: 'issued' });
    }
    const busy = await access.check(inbound('4'));
    expect(busy).toMatchObject({ decision: 'pair', pairing: 'busy' });
    expect((busy as { reply: string }).reply).toMatch(/try again later/i);
    expect(await store.listPairingCodes('test')).toHaveLength(3);
    // Other platforms have their own budget.
    expect(await access.check(inbound('4', { platform: 'telegram' }))).toMatchObject({ pairing: 'issued' });
    // Once one is approved there is room again.
    const first = await store.listPairingCodes('test');
    await access.approveCode('test', first[0]?.code ?? '', 'cli');
    advance(MINUTE);
    expect(await access.check(inbound('4'))).toMatchObject({ pairing: 'issued' });
  });

  it('expires codes after an hour', async () => {
    const { access, advance } = kit();
    const code = codeIn(((await access.check(inbound('7'))) as { reply: string }).reply);
    advance(60 * MINUTE - 1);
    expect(await access.listPending()).toHaveLength(1);
    advance(1);
    expect(await access.listPending()).toEqual([]);
    expect(await access.approveCode('test', code, 'cli')).toBeUndefined();
    expect(await access.check(inbound('7'))).toMatchObject({ decision: 'pair', pairing: 'issued' });
    expect(await access.listPending()).toHaveLength(1);
  });

  it('frees the cap as codes expire', async () => {
    const { access, advance } = kit();
    for (const user of ['1', '2', '3']) await access.check(inbound(user));
    expect(await access.check(inbound('4'))).toMatchObject({ pairing: 'busy' });
    advance(60 * MINUTE);
    expect(await access.check(inbound('4'))).toMatchObject({ pairing: 'issued' });
  });

  it('holds the cap and one code per user under concurrent requests', async () => {
    const { access, store } = kit();
    const decisions = await Promise.all(
      ['1', '2', '3', '4', '5', '1'].map((user) => access.check(inbound(user))),
    );
    const statuses = decisions.map((d) => (d.decision === 'pair' ? d.pairing : d.decision));
    expect(statuses.filter((s) => s === 'issued')).toHaveLength(3);
    expect(statuses.filter((s) => s === 'busy')).toHaveLength(2);
    expect(statuses[5]).toBe('repeated');
    expect(await store.listPairingCodes()).toHaveLength(3);
  });

  it('never reuses a pending code and gives up (busy) when no unused code turns up', async () => {
    const sequence = ['ABCDEFGH', 'ABCDEFGH', 'HGFEDCBA'];
    const { access, store } = kit({}, { randomCode: () => sequence.shift() ?? 'ABCDEFGH' });
    await access.check(inbound('1'));
    await access.check(inbound('2'));
    expect((await store.listPairingCodes()).map((c) => [c.userId, c.code])).toEqual([
      ['1', 'ABCDEFGH'],
      ['2', 'HGFEDCBA'],
    ]);
    expect(await access.check(inbound('3'))).toMatchObject({ pairing: 'busy' });
  });

  it('never writes a code to the log', async () => {
    const { access, logs, advance, store } = kit();
    const codes = new Set<string>();
    for (const user of ['1', '2', '3', '4']) {
      const decision = await access.check(inbound(user, { userName: `user${user}` }));
      if (decision.decision === 'pair' && decision.pairing !== 'busy') codes.add(codeIn(decision.reply));
    }
    advance(MINUTE);
    await access.check(inbound('1'));
    const [first, second] = [...codes];
    await access.approveCode('test', first ?? '', 'cli');
    await access.approveCode('test', 'WRONGCODE', 'cli');
    await access.revoke('test', '1');
    await store.clearPairingCodes();
    await access.check(inbound('2'));
    await access.check(inbound('9', { chatType: 'group' }));
    expect(codes.size).toBe(3);
    expect(second).toBeDefined();
    const text = logs.join('');
    expect(text).toContain('pairing code issued');
    expect(text).toContain('pairing approved');
    for (const code of codes) {
      expect(text).not.toContain(code);
      expect(text.toLowerCase()).not.toContain(code.toLowerCase());
    }
  });
});
