import { apiServerPlatform } from '../platforms/api-server/api-server-platform.js';
import { discordPlatform } from '../platforms/discord/discord-platform.js';
import { feishuPlatform } from '../platforms/feishu/feishu-platform.js';
import type { PlatformDefinition } from '../platforms/platform.js';
import { telegramPlatform } from '../platforms/telegram/telegram-platform.js';
import { webChatPlatform } from '../platforms/web-chat/web-chat-platform.js';
import { webhookPlatform } from '../platforms/webhook/webhook-platform.js';

/**
 * Every platform this build has, in the order they are built (chat platforms are built before
 * the others whatever their place here). `start` builds the configured ones, `worker` none (it
 * only runs turns), `doctor` describes each, and `/readyz` checks each running chat platform.
 * Adding a platform: a `src/platforms/<name>/` folder exporting a `PlatformDefinition`
 * (platforms/platform.ts), and one line here.
 */
export const PLATFORMS: readonly PlatformDefinition[] = [
  apiServerPlatform,
  webhookPlatform,
  telegramPlatform,
  discordPlatform,
  feishuPlatform,
  webChatPlatform,
];
