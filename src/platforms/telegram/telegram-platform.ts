import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.js';
import type { SharedFiles } from '../../lib/shared-files.js';
import type { PlatformDefinition } from '../platform.js';
import { createTelegramAdapter, type TelegramAdapter } from './create-telegram-adapter.js';
import { TELEGRAM_PLATFORM } from './translate-update.js';

/**
 * The Telegram platform as configured: undefined without TELEGRAM_BOT_TOKEN; webhook mode when
 * TELEGRAM_WEBHOOK_URL is set (then TELEGRAM_WEBHOOK_SECRET is required), long polling otherwise.
 */
export function telegramAdapterFromConfig(
  config: Config,
  logger: Logger,
  sharedFiles?: SharedFiles,
): TelegramAdapter | undefined {
  const settings = config.platforms.telegram;
  if (settings.bot_token === undefined) return undefined;
  const webhook = settings.webhook_url !== undefined;
  return createTelegramAdapter({
    config,
    logger,
    token: settings.bot_token,
    mode: webhook ? 'webhook' : 'polling',
    ...(sharedFiles === undefined ? {} : { sharedFiles }),
    ...(webhook ? { webhookUrl: settings.webhook_url } : {}),
    ...(settings.webhook_secret !== undefined ? { webhookSecret: settings.webhook_secret } : {}),
  });
}

/** Telegram (grammY): long polling, or a webhook at `/telegram/webhook`. */
export const telegramPlatform: PlatformDefinition = {
  name: TELEGRAM_PLATFORM,
  configSection: 'telegram',
  chat: true,
  describe(config) {
    const telegram = config.platforms.telegram;
    if (telegram.bot_token === undefined) return { usable: false, detail: 'missing TELEGRAM_BOT_TOKEN' };
    if (telegram.webhook_url !== undefined && telegram.webhook_secret === undefined) {
      return { usable: false, detail: 'TELEGRAM_WEBHOOK_URL needs TELEGRAM_WEBHOOK_SECRET' };
    }
    return { usable: true, detail: telegram.webhook_url ? 'webhook mode' : 'long polling' };
  },
  fromConfig(config, context) {
    const adapter = telegramAdapterFromConfig(config, context.logger, context.sharedFiles);
    return adapter === undefined ? undefined : { label: `telegram (${adapter.mode})`, adapter };
  },
};
