import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, ALICE, type CommandKit, commandKit } from './command-kit.js';

let kit: CommandKit;

beforeEach(async () => {
  kit = await commandKit();
});

afterEach(async () => {
  await kit.close();
});

describe('/pair', () => {
  it('approves a pending code on this platform, once', async () => {
    await kit.store.addPairingCode({
      code: 'KXGH5N7P',
      platform: 'test',
      userId: 'newbie',
      userName: 'Newbie',
      expiresAt: kit.now() + 3_600_000,
    });
    expect(await kit.send('/pair kxgh5n7p', ADMIN)).toBe(
      '✅ Paired: Newbie (newbie) can now talk to me on test.',
    );
    expect(await kit.store.isPairedUser('test', 'newbie')).toBe(true);
    expect((await kit.store.listPairedUsers('test'))[0]?.approvedBy).toBe(ADMIN.userId);
    expect(await kit.send('/pair KXGH5N7P', ADMIN)).toBe(
      'No pending pairing code KXGH5N7P on test (unknown, already used or expired). Ask the user to message me again for a fresh code.',
    );
  });

  it('takes another platform, refuses expired codes, and explains its usage', async () => {
    await kit.store.addPairingCode({
      code: 'ABCD2345',
      platform: 'telegram',
      userId: '42',
      userName: undefined,
      expiresAt: kit.now() + 1_000,
    });
    kit.advance(2_000);
    expect(await kit.send('/pair telegram ABCD2345', ADMIN)).toMatch(
      /^No pending pairing code ABCD2345 on telegram/,
    );
    expect(await kit.send('/pair', ADMIN)).toMatch(/^Usage: \/pair <code>/);
    expect(await kit.send('/pair a b c', ADMIN)).toMatch(/^Usage:/);
    expect(await kit.send('/pair no-dashes!', ADMIN)).toMatch(/^Usage:/);
  });

  it('is for admins only, even when listed in user_commands', async () => {
    const handler = kit.handlerWith({ userCommands: ['pair', 'status'] });
    expect(await kit.send('/pair ABCD2345', ALICE, { handler })).toBe('Only admins can use /pair.');
  });

  it('says when pairing is not wired', async () => {
    const handler = kit.handlerWith({ approvePairing: undefined });
    expect(await kit.send('/pair ABCD2345', ADMIN, { handler })).toBe(
      'Pairing is not available on this gateway.',
    );
  });
});
