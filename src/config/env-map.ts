/**
 * Environment variables layered over config.yaml: name → dot path and how the string is read.
 * Hermes-compatible names where Hermes has one.
 */
export type EnvKind = 'string' | 'int' | 'bool' | 'csv';

export interface EnvBinding {
  readonly name: string;
  readonly path: string;
  readonly kind: EnvKind;
}

export const ENV_BINDINGS: readonly EnvBinding[] = [
  { name: 'OPENAI_BASE_URL', path: 'model.base_url', kind: 'string' },
  { name: 'OPENAI_API_KEY', path: 'model.api_key', kind: 'string' },
  { name: 'HERMES_MODEL', path: 'model.name', kind: 'string' },
  { name: 'HERMES_VISION_MODEL', path: 'model.vision_model', kind: 'string' },
  { name: 'REDIS_URL', path: 'redis.url', kind: 'string' },
  { name: 'DATABASE_URL', path: 'database.url', kind: 'string' },
  { name: 'HERMES_HTTP_HOST', path: 'http.host', kind: 'string' },
  { name: 'HERMES_HTTP_PORT', path: 'http.port', kind: 'int' },
  { name: 'HERMES_LOG_LEVEL', path: 'logging.level', kind: 'string' },
  { name: 'API_SERVER_ENABLED', path: 'platforms.api_server.enabled', kind: 'bool' },
  { name: 'API_SERVER_KEY', path: 'platforms.api_server.key', kind: 'string' },
  { name: 'HERMES_DASHBOARD_TOKEN', path: 'platforms.api_server.dashboard_token', kind: 'string' },
  { name: 'TELEGRAM_BOT_TOKEN', path: 'platforms.telegram.bot_token', kind: 'string' },
  { name: 'TELEGRAM_API_ROOT', path: 'platforms.telegram.api_root', kind: 'string' },
  { name: 'TELEGRAM_ALLOWED_USERS', path: 'platforms.telegram.allowed_users', kind: 'csv' },
  { name: 'TELEGRAM_WEBHOOK_URL', path: 'platforms.telegram.webhook_url', kind: 'string' },
  { name: 'TELEGRAM_WEBHOOK_SECRET', path: 'platforms.telegram.webhook_secret', kind: 'string' },
  { name: 'DISCORD_BOT_TOKEN', path: 'platforms.discord.bot_token', kind: 'string' },
  { name: 'DISCORD_API_ROOT', path: 'platforms.discord.api_root', kind: 'string' },
  { name: 'DISCORD_ALLOWED_USERS', path: 'platforms.discord.allowed_users', kind: 'csv' },
  { name: 'DISCORD_ALLOWED_ROLES', path: 'platforms.discord.allowed_roles', kind: 'csv' },
  { name: 'DISCORD_HOME_CHANNEL', path: 'platforms.discord.home_channel', kind: 'string' },
  { name: 'DISCORD_REQUIRE_MENTION', path: 'platforms.discord.require_mention', kind: 'bool' },
  { name: 'DISCORD_FREE_RESPONSE_CHANNELS', path: 'platforms.discord.free_response_channels', kind: 'csv' },
  { name: 'DISCORD_AUTO_THREAD', path: 'platforms.discord.auto_thread', kind: 'bool' },
  { name: 'DISCORD_ALLOW_BOTS', path: 'platforms.discord.allow_bots', kind: 'string' },
  { name: 'DISCORD_REACTIONS', path: 'platforms.discord.reactions', kind: 'bool' },
  { name: 'DISCORD_IGNORED_CHANNELS', path: 'platforms.discord.ignored_channels', kind: 'csv' },
  { name: 'DISCORD_ALLOWED_CHANNELS', path: 'platforms.discord.allowed_channels', kind: 'csv' },
  // Hermes' name first, this project's name second: when both are set, DISCORD_COMMAND_SYNC wins.
  { name: 'DISCORD_COMMAND_SYNC_POLICY', path: 'platforms.discord.command_sync', kind: 'string' },
  { name: 'DISCORD_COMMAND_SYNC', path: 'platforms.discord.command_sync', kind: 'string' },
  { name: 'FEISHU_APP_ID', path: 'platforms.feishu.app_id', kind: 'string' },
  { name: 'FEISHU_APP_SECRET', path: 'platforms.feishu.app_secret', kind: 'string' },
  { name: 'FEISHU_DOMAIN', path: 'platforms.feishu.domain', kind: 'string' },
  { name: 'FEISHU_CONNECTION_MODE', path: 'platforms.feishu.connection_mode', kind: 'string' },
  { name: 'FEISHU_ENCRYPT_KEY', path: 'platforms.feishu.encrypt_key', kind: 'string' },
  { name: 'FEISHU_VERIFICATION_TOKEN', path: 'platforms.feishu.verification_token', kind: 'string' },
  { name: 'FEISHU_ALLOWED_USERS', path: 'platforms.feishu.allowed_users', kind: 'csv' },
  { name: 'FEISHU_HOME_CHANNEL', path: 'platforms.feishu.home_channel', kind: 'string' },
  { name: 'FEISHU_GROUP_POLICY', path: 'platforms.feishu.group_policy', kind: 'string' },
  { name: 'FEISHU_REQUIRE_MENTION', path: 'platforms.feishu.require_mention', kind: 'bool' },
  { name: 'FEISHU_ALLOW_BOTS', path: 'platforms.feishu.allow_bots', kind: 'string' },
  { name: 'FEISHU_BOT_OPEN_ID', path: 'platforms.feishu.bot_open_id', kind: 'string' },
  { name: 'WEBHOOK_ENABLED', path: 'platforms.webhook.enabled', kind: 'bool' },
  { name: 'WEBHOOK_SECRET', path: 'platforms.webhook.secret', kind: 'string' },
  { name: 'GATEWAY_ALLOWED_USERS', path: 'gateway.allowed_users', kind: 'csv' },
  { name: 'GATEWAY_ALLOW_ALL_USERS', path: 'gateway.allow_all', kind: 'bool' },
  { name: 'TELEGRAM_ALLOW_ALL_USERS', path: 'platforms.telegram.allow_all', kind: 'bool' },
  { name: 'DISCORD_ALLOW_ALL_USERS', path: 'platforms.discord.allow_all', kind: 'bool' },
  { name: 'FEISHU_ALLOW_ALL_USERS', path: 'platforms.feishu.allow_all', kind: 'bool' },
  { name: 'GATEWAY_ADMIN_USERS', path: 'gateway.admin_users', kind: 'csv' },
  { name: 'TELEGRAM_ADMIN_USERS', path: 'platforms.telegram.admin_users', kind: 'csv' },
  { name: 'DISCORD_ADMIN_USERS', path: 'platforms.discord.admin_users', kind: 'csv' },
  { name: 'FEISHU_ADMIN_USERS', path: 'platforms.feishu.admin_users', kind: 'csv' },
  { name: 'TERMINAL_ENV', path: 'terminal.backend', kind: 'string' },
  { name: 'TERMINAL_CWD', path: 'terminal.cwd', kind: 'string' },
  { name: 'SUDO_PASSWORD', path: 'terminal.sudo_password', kind: 'string' },
  { name: 'HERMES_YOLO_MODE', path: 'approvals.yolo', kind: 'bool' },
];
