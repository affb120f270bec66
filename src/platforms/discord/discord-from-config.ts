import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.js';
import { createDiscordAdapter, type DiscordAdapter } from './create-discord-adapter.js';

/** The Discord platform as configured: undefined without DISCORD_BOT_TOKEN. */
export function discordAdapterFromConfig(config: Config, logger: Logger): DiscordAdapter | undefined {
  const settings = config.platforms.discord;
  if (settings.bot_token === undefined) return undefined;
  return createDiscordAdapter({ config, logger, token: settings.bot_token });
}
