import type { Logger } from 'pino';
import type { Config } from '../../config/config-schema.js';
import { createTelegramAdapter, type TelegramAdapter } from './create-telegram-adapter.js';

/**
 * The Telegram platform as configured: undefined without TELEGRAM_BOT_TOKEN; webhook mode when
 * TELEGRAM_WEBHOOK_URL is set (then TELEGRAM_WEBHOOK_SECRET is required), long polling otherwise.
 */
export function telegramAdapterFromConfig(config: Config, logger: Logger): TelegramAdapter | undefined {
  const settings = config.platforms.telegram;
  if (settings.bot_token === undefined) return undefined;
  const webhook = settings.webhook_url !== undefined;
  return createTelegramAdapter({
    config,
    logger,
    token: settings.bot_token,
    mode: webhook ? 'webhook' : 'polling',
    ...(webhook ? { webhookUrl: settings.webhook_url } : {}),
    ...(settings.webhook_secret !== undefined ? { webhookSecret: settings.webhook_secret } : {}),
  });
}
