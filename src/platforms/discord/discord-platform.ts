import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.js';
import type { SharedFiles } from '../../lib/shared-files.js';
import type { PlatformDefinition } from '../platform.js';
import { createDiscordAdapter, type DiscordAdapter } from './create-discord-adapter.js';
import { DISCORD_PLATFORM } from './translate-message.js';

/** The Discord platform as configured: undefined without DISCORD_BOT_TOKEN. */
export function discordAdapterFromConfig(
  config: Config,
  logger: Logger,
  sharedFiles?: SharedFiles,
): DiscordAdapter | undefined {
  const settings = config.platforms.discord;
  if (settings.bot_token === undefined) return undefined;
  return createDiscordAdapter({
    config,
    logger,
    token: settings.bot_token,
    ...(sharedFiles === undefined ? {} : { sharedFiles }),
  });
}

/** Discord (discord.js): the gateway connection for events, REST for everything sent. No routes. */
export const discordPlatform: PlatformDefinition = {
  name: DISCORD_PLATFORM,
  configSection: 'discord',
  chat: true,
  describe(config) {
    const discord = config.platforms.discord;
    if (discord.bot_token === undefined) return { usable: false, detail: 'missing DISCORD_BOT_TOKEN' };
    const sync =
      discord.command_sync === 'off'
        ? 'slash commands off'
        : `slash commands synced ${discord.command_sync === 'guild' ? 'per server' : 'globally'}`;
    return {
      usable: true,
      detail: `gateway connection; ${sync}${discord.api_root !== undefined ? `; REST at ${discord.api_root}` : ''}`,
    };
  },
  fromConfig(config, context) {
    const adapter = discordAdapterFromConfig(config, context.logger, context.sharedFiles);
    return adapter === undefined ? undefined : { label: 'discord', adapter };
  },
};
