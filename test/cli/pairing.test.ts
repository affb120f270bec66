import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_APPROVER, openStoreForCli, runPairing } from '../../src/cli/pairing.js';
import type { Config } from '../../src/config/config-schema.js';
import { type AccessControl, createAccessControl } from '../../src/gateway/access/create-access-control.js';
import type { GatewayStore } from '../../src/gateway/store/gateway-store.js';
import type { SqliteGatewayStore } from '../../src/gateway/store/sqlite-gateway-store.js';
import type { InboundEvent } from '../../src/platforms/adapter.js';
import { makeTempHome, silentLogger, testConfig } from '../helpers/test-config.js';

interface Captured {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function dm(platform: string, userId: string, userName?: string): InboundEvent {
  return {
    kind: 'message',
    platform,
    eventId: randomUUID(),
    messageId: '1',
    chat: { chatId: userId, chatType: 'dm' },
    sender: { userId, ...(userName === undefined ? {} : { userName }) },
    receivedAt: Date.now(),
    text: 'hi',
    addressed: true,
  };
}

describe('hermes-gateway pairing', () => {
  let temp: { home: string; cleanup: () => void };
  let config: Config;
  /** The gateway's connection to state.db … */
  let gatewayStore: GatewayStore;
  let access: AccessControl;
  /** … and the CLI's own, as when both run at once. */
  let cliStore: GatewayStore;

  beforeEach(async () => {
    temp = makeTempHome('hermes-pairing-cli-');
    config = testConfig(temp.home);
    gatewayStore = await openStoreForCli(config, silentLogger);
    access = createAccessControl({ config, store: gatewayStore, logger: silentLogger });
    cliStore = await openStoreForCli(config, silentLogger);
  });

  afterEach(async () => {
    await cliStore.close();
    await gatewayStore.close();
    temp.cleanup();
  });

  async function run(...argv: string[]): Promise<Captured> {
    let stdout = '';
    let stderr = '';
    const code = await runPairing(
      argv,
      {
        stdin: Readable.from([]),
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        isTty: false,
      },
      { store: cliStore, logger: silentLogger },
    );
    return { code, stdout, stderr };
  }

  async function requestCode(platform: string, userId: string, userName?: string): Promise<string> {
    await access.check(dm(platform, userId, userName));
    const pending = await access.listPending(platform);
    const code = pending.find((p) => p.userId === userId)?.code;
    if (code === undefined) throw new Error('no code issued');
    return code;
  }

  it('opens state.db in HERMES_HOME', () => {
    expect((cliStore as SqliteGatewayStore).path).toBe(join(temp.home, 'state.db'));
  });

  it('lists pending codes and paired users', async () => {
    const code = await requestCode('telegram', '42', 'alice');
    const listed = await run('list');
    expect(listed.code).toBe(0);
    expect(listed.stderr).toBe('');
    expect(listed.stdout).toContain('Pending pairing codes (1):');
    expect(listed.stdout).toMatch(new RegExp(`telegram\\s+${code}\\s+42 \\(alice\\)\\s+in 60 min`));
    expect(listed.stdout).toContain('Paired users (0):\n  (none)');
  });

  it('lists as JSON, optionally for one platform', async () => {
    const code = await requestCode('telegram', '42');
    await requestCode('discord', '7');
    const listed = await run('list', '--json');
    expect(listed.code).toBe(0);
    const parsed = JSON.parse(listed.stdout) as { pending: Record<string, unknown>[]; paired: unknown[] };
    expect(parsed.pending).toHaveLength(2);
    expect(parsed.pending.find((p) => p['platform'] === 'telegram')).toEqual({
      platform: 'telegram',
      code,
      userId: '42',
      userName: null,
      createdAt: expect.stringMatching(/Z$/),
      expiresAt: expect.stringMatching(/Z$/),
    });
    expect(parsed.paired).toEqual([]);
    const one = JSON.parse((await run('list', 'Discord', '--json')).stdout) as { pending: unknown[] };
    expect(one.pending).toEqual([expect.objectContaining({ platform: 'discord', userId: '7' })]);
  });

  it('approves a code (any case) so the user is let in', async () => {
    const code = await requestCode('telegram', '42', 'alice');
    const approved = await run('approve', 'telegram', code.toLowerCase());
    expect(approved).toEqual({
      code: 0,
      stdout: 'Approved telegram user 42 (alice): they can talk to the bot now.\n',
      stderr: '',
    });
    expect(await access.check(dm('telegram', '42'))).toEqual({
      decision: 'allow',
      isAdmin: false,
      via: 'paired',
    });
    const parsed = JSON.parse((await run('list', '--json')).stdout) as {
      pending: unknown[];
      paired: unknown[];
    };
    expect(parsed.pending).toEqual([]);
    expect(parsed.paired).toEqual([
      expect.objectContaining({
        platform: 'telegram',
        userId: '42',
        userName: 'alice',
        approvedBy: CLI_APPROVER,
      }),
    ]);
    expect((await run('list')).stdout).toMatch(/telegram\s+42 \(alice\)\s+cli\s+\d{4}-/);
  });

  it('fails with 1 for an unknown, used or other-platform code', async () => {
    const code = await requestCode('telegram', '42');
    const wrongPlatform = await run('approve', 'discord', code);
    expect(wrongPlatform.code).toBe(1);
    expect(wrongPlatform.stderr).toContain('unknown, expired or already used');
    expect((await run('approve', 'telegram', 'ZZZZ2222')).code).toBe(1);
    expect((await run('approve', 'telegram', code)).code).toBe(0);
    expect((await run('approve', 'telegram', code)).code).toBe(1);
  });

  it('revokes a paired user, who is then shut out', async () => {
    const code = await requestCode('test', '42');
    await run('approve', 'test', code);
    const revoked = await run('revoke', 'test', '42');
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain('Revoked test user 42');
    expect((await access.check(dm('test', '42'))).decision).not.toBe('allow');
    const again = await run('revoke', 'test', '42');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('test user 42 is not paired');
  });

  it('clears pending codes', async () => {
    await requestCode('telegram', '1');
    await requestCode('discord', '2');
    expect((await run('clear-pending', 'telegram')).stdout).toBe('Removed 1 pending pairing code.\n');
    expect(await access.listPending()).toEqual([expect.objectContaining({ platform: 'discord' })]);
    expect((await run('clear-pending')).stdout).toBe('Removed 1 pending pairing code.\n');
  });

  it('keeps control characters from user names off the terminal', async () => {
    await requestCode('telegram', '42', 'evil\u001b[2Jname\nline');
    const listed = await run('list');
    expect(listed.stdout).toContain('42 (evil?[2Jname?line)');
    expect(listed.stdout).not.toContain('\u001b');
  });

  it.each([
    [[]],
    [['nope']],
    [['approve', 'telegram']],
    [['approve', 'telegram', 'ABCD2345', 'extra']],
    [['approve', 'tele gram', 'ABCD2345']],
    [['revoke', 'telegram']],
    [['approve', '--json', 'telegram', 'ABCD2345']],
    [['list', '--bogus']],
    [['list', 'a', 'b']],
    [['clear-pending', '9x']],
  ])('exits 2 with usage for %j', async (argv) => {
    const result = await run(...argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('usage:');
  });

  it('prints help with exit 0', async () => {
    const result = await run('--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('pairing approve PLATFORM CODE');
  });
});
