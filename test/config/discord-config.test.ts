import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { isHermesError } from '../../src/errors/hermes-error.js';
import { makeTempHome } from '../helpers/test-config.js';

describe('Discord settings (Hermes DISCORD_* names and platforms.discord)', () => {
  let temp: ReturnType<typeof makeTempHome>;
  beforeEach(() => {
    temp = makeTempHome('hermes-dc-config-');
  });
  afterEach(() => temp.cleanup());

  const load = (env: Record<string, string> = {}) => loadConfig({ home: temp.home, env });

  it('has defaults that answer DMs and mentions only, thread mentions, react, and sync commands globally', () => {
    expect(load().platforms.discord).toMatchObject({
      require_mention: true,
      auto_thread: true,
      allow_bots: 'none',
      reactions: true,
      command_sync: 'global',
      allowed_roles: [],
      free_response_channels: [],
      ignored_channels: [],
      allowed_channels: [],
    });
  });

  it('reads every Hermes environment name', () => {
    const discord = load({
      DISCORD_BOT_TOKEN: 'x'.repeat(30),
      DISCORD_API_ROOT: 'http://127.0.0.1:9/api',
      DISCORD_ALLOWED_USERS: '1,2',
      DISCORD_ALLOWED_ROLES: '30, 31',
      DISCORD_ALLOW_ALL_USERS: 'false',
      DISCORD_HOME_CHANNEL: '40',
      DISCORD_REQUIRE_MENTION: 'false',
      DISCORD_FREE_RESPONSE_CHANNELS: '50',
      DISCORD_AUTO_THREAD: 'no',
      DISCORD_ALLOW_BOTS: 'mentions',
      DISCORD_REACTIONS: '0',
      DISCORD_IGNORED_CHANNELS: '60,61',
      DISCORD_ALLOWED_CHANNELS: '70',
      DISCORD_COMMAND_SYNC_POLICY: 'off',
    }).platforms.discord;
    expect(discord).toMatchObject({
      api_root: 'http://127.0.0.1:9/api',
      allowed_users: ['1', '2'],
      allowed_roles: ['30', '31'],
      allow_all: false,
      home_channel: '40',
      require_mention: false,
      free_response_channels: ['50'],
      auto_thread: false,
      allow_bots: 'mentions',
      reactions: false,
      ignored_channels: ['60', '61'],
      allowed_channels: ['70'],
      command_sync: 'off',
    });
  });

  it("reconciles the two sync names: Hermes' safe/bulk mean global, DISCORD_COMMAND_SYNC wins over the policy", () => {
    expect(load({ DISCORD_COMMAND_SYNC_POLICY: 'safe' }).platforms.discord.command_sync).toBe('global');
    expect(load({ DISCORD_COMMAND_SYNC_POLICY: 'bulk' }).platforms.discord.command_sync).toBe('global');
    expect(
      load({ DISCORD_COMMAND_SYNC_POLICY: 'off', DISCORD_COMMAND_SYNC: 'guild' }).platforms.discord
        .command_sync,
    ).toBe('guild');
    writeFileSync(join(temp.home, 'config.yaml'), 'platforms:\n  discord:\n    command_sync: guild\n');
    expect(load().platforms.discord.command_sync).toBe('guild');
    expect(load({ DISCORD_COMMAND_SYNC: 'global' }).platforms.discord.command_sync).toBe('global');
  });

  it('rejects ids that are not ids, unknown values and unknown keys, naming them', () => {
    const refused = (env: Record<string, string>, pattern: RegExp) => {
      try {
        load(env);
      } catch (error) {
        expect(isHermesError(error, 'config_invalid')).toBe(true);
        expect((error as Error).message).toMatch(pattern);
        return;
      }
      throw new Error('expected the configuration to be refused');
    };
    refused({ DISCORD_ALLOWED_CHANNELS: '#general' }, /allowed_channels/);
    refused({ DISCORD_ALLOW_BOTS: 'yes' }, /allow_bots/);
    refused({ DISCORD_COMMAND_SYNC: 'sometimes' }, /command_sync/);
    writeFileSync(join(temp.home, 'config.yaml'), 'platforms:\n  discord:\n    auto_threads: true\n');
    refused({}, /auto_threads/);
  });
});
