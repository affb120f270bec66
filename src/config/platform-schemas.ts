import { z } from 'zod';

/*
 * The `platforms:` sections of the configuration schema (config-schema.ts assembles them): one
 * strict object per platform, every key with its default and unit.
 */

const csv = z.array(z.string().min(1));

export const telegramSchema = z
  .object({
    /** Platform users who may run admin commands and decide for others. */
    admin_users: csv.default([]),
    /** Let anyone talk to the bot on this platform (no allowlist, no pairing). */
    allow_all: z.boolean().default(false),
    /** Unknown users in a DM: `pair` (offer a pairing code) or `ignore`. Default: pair only without an allowlist. */
    unknown_users: z.enum(['auto', 'pair', 'ignore']).default('auto'),
    bot_token: z.string().min(1).optional(),
    api_root: z.url().optional(),
    allowed_users: csv.default([]),
    webhook_url: z.url().optional(),
    webhook_secret: z.string().min(1).optional(),
    /** Largest photo or document fetched from a chat, bytes (the cloud Bot API serves up to 20 MB). */
    download_max_bytes: z.number().int().positive().default(20_971_520),
    /** `html`: markdown in answers is rendered as Telegram HTML; `plain`: answers are sent as plain text. */
    parse_mode: z.enum(['html', 'plain']).default('html'),
    /** Long-poll wait of one getUpdates call, seconds. */
    poll_timeout_seconds: z.number().int().min(0).max(50).default(30),
    /** Failed hand-overs of one update before it is skipped (and logged), so it cannot block the chat. */
    max_update_failures: z.number().int().positive().max(100).default(5),
  })
  .strict();

/** A Discord snowflake (user, role, channel or guild id). */
const discordId = z.string().regex(/^\d{1,20}$/, 'a Discord id (digits only)');
const discordIds = z.array(discordId);

export const discordSchema = z
  .object({
    /** Platform users who may run admin commands and decide for others. */
    admin_users: csv.default([]),
    /** Let anyone talk to the bot on this platform (no allowlist, no pairing). */
    allow_all: z.boolean().default(false),
    /** Unknown users in a DM: `pair` (offer a pairing code) or `ignore`. Default: pair only without an allowlist. */
    unknown_users: z.enum(['auto', 'pair', 'ignore']).default('auto'),
    bot_token: z.string().min(1).optional(),
    api_root: z.url().optional(),
    allowed_users: csv.default([]),
    // --- Discord adapter settings (Hermes' DISCORD_* names; see docs/platforms/discord.md) ---
    /** Role ids whose members may talk to the bot (either a user id or a role grants access). */
    allowed_roles: discordIds.default([]),
    /** Channel (or thread) id that webhook routes delivering to `chat_id: home` use until /sethome picks one. */
    home_channel: discordId.optional(),
    /** In server channels, answer only when @-mentioned or replied to (free-response channels excepted). */
    require_mention: z.boolean().default(true),
    /** Channel ids where every message is answered without a mention (their threads too). */
    free_response_channels: discordIds.default([]),
    /** A mention in a server channel opens a thread named after the message, and the answer goes there. */
    auto_thread: z.boolean().default(true),
    /** Messages of other bots: `none` (ignored), `mentions` (only when they mention the bot) or `all`. */
    allow_bots: z.enum(['none', 'mentions', 'all']).default('none'),
    /** React 👀 when a message is taken, then ✅ when answered or ❌ when the turn failed. */
    reactions: z.boolean().default(true),
    /** Channel ids never answered in (their threads neither). */
    ignored_channels: discordIds.default([]),
    /** When not empty: the only channel ids answered in (their threads too); DMs are not affected. */
    allowed_channels: discordIds.default([]),
    /**
     * Where the chat commands are registered as slash commands: `off`, `guild` (each server the bot
     * is in, shown at once) or `global` (every server and DMs). Hermes' `safe` and `bulk` mean `global`.
     */
    command_sync: z
      .preprocess(
        (value) => (value === 'safe' || value === 'bulk' ? 'global' : value),
        z.enum(['off', 'guild', 'global']),
      )
      .default('global'),
    /** Largest file fetched from a message, bytes. */
    download_max_bytes: z.number().int().positive().default(20_971_520),
    /** Failed hand-overs of one message or click before it is given up (the user is told). */
    max_event_failures: z.number().int().positive().max(100).default(5),
    /** Milliseconds the gateway connection may stay down before a fresh one is opened (pauses then double, up to 5 minutes). */
    reconnect_after_ms: z.number().int().min(1_000).max(3_600_000).default(60_000),
  })
  .strict();

export const feishuSchema = z
  .object({
    /** Platform users who may run admin commands and decide for others. */
    admin_users: csv.default([]),
    /** Let anyone talk to the bot on this platform (no allowlist, no pairing). */
    allow_all: z.boolean().default(false),
    /** Unknown users in a DM: `pair` (offer a pairing code) or `ignore`. Default: pair only without an allowlist. */
    unknown_users: z.enum(['auto', 'pair', 'ignore']).default('auto'),
    app_id: z.string().min(1).optional(),
    app_secret: z.string().min(1).optional(),
    /** `feishu` (open.feishu.cn), `lark` (open.larksuite.com), or a URL (a proxy, a local fake). */
    domain: z.union([z.enum(['feishu', 'lark']), z.url()]).default('feishu'),
    connection_mode: z.enum(['websocket', 'webhook']).default('websocket'),
    encrypt_key: z.string().min(1).optional(),
    verification_token: z.string().min(1).optional(),
    /** open_id (`ou_…`) or user_id of users who may talk to the bot. */
    allowed_users: csv.default([]),
    // --- Feishu adapter settings (Hermes' FEISHU_* names; see docs/platforms/feishu.md) ---
    /** Chat id (`oc_…`) that webhook routes delivering to `chat_id: home` use until /sethome picks one. */
    home_channel: z.string().min(1).optional(),
    /** Groups: `open` (anyone access allows), `allowlist` (only allowed_users/admin_users), `disabled`. */
    group_policy: z.enum(['open', 'allowlist', 'disabled']).default('allowlist'),
    /** In groups, answer only when the bot is @mentioned. */
    require_mention: z.boolean().default(true),
    /** Messages of other apps' bots: `none`, `mentions` (only when they @mention this bot) or `all`. */
    allow_bots: z.enum(['none', 'mentions', 'all']).default('none'),
    /** The bot's open_id; looked up at start (bot/v3/info) when not set. */
    bot_open_id: z.string().min(1).optional(),
    /** Webhook mode: oldest X-Lark-Request-Timestamp accepted, seconds either side of now. */
    timestamp_tolerance_seconds: z.number().int().min(10).max(3600).default(300),
    /** Largest image fetched from a message, bytes. */
    download_max_bytes: z.number().int().positive().default(10_485_760),
    /** Failed hand-overs of one event before it is given up (and logged). */
    max_event_failures: z.number().int().positive().max(100).default(5),
  })
  .strict();

const webhookFilterValue = z.union([z.string(), z.number(), z.boolean()]);

const webhookRouteSchema = z
  .object({
    /** github: X-Hub-Signature-256; standard: Standard Webhooks (webhook-signature); bearer: Authorization header. */
    auth: z.enum(['github', 'standard', 'bearer']).default('bearer'),
    /** The route's secret; defaults to platforms.webhook.secret (WEBHOOK_SECRET). `whsec_…` = base64 key. */
    secret: z.string().min(1).optional(),
    /** No secret at all: allowed only when http.host is a loopback address. */
    insecure: z.boolean().default(false),
    /** Prompt template with {dot.path} placeholders into the JSON payload; default: the whole payload. */
    prompt: z.string().min(1).max(20_000).optional(),
    /** Dot path → accepted value(s); a delivery matching none is answered 200 `filtered` and not run. */
    filters: z
      .record(z.string().min(1), z.union([webhookFilterValue, z.array(webhookFilterValue).min(1)]))
      .default({}),
    /** Toolsets replacing `hermes-webhook` for this route (config file only; the one way to widen it). */
    toolsets: z.array(z.string().min(1)).min(1).optional(),
    /** Where the result goes: `log`, `{ url }` (signed POST) or `{ platform, chat_id }`. */
    deliver: z
      .union([
        z.literal('log'),
        z.object({ url: z.url() }).strict(),
        z.object({ platform: z.string().min(1), chat_id: z.string().min(1) }).strict(),
      ])
      .default('log'),
    /** Largest request body, bytes. */
    max_body_bytes: z.number().int().positive().max(26_214_400).default(1_048_576),
    /** Accepted deliveries per minute (token bucket; bursts up to the same number). */
    rate_limit: z.number().int().positive().max(100_000).default(30),
  })
  .strict();

export type WebhookRouteConfig = z.output<typeof webhookRouteSchema>;

export const webhookSchema = z
  .object({
    /** Serve `POST /webhooks/<route>` (WEBHOOK_ENABLED). */
    enabled: z.boolean().default(false),
    /** Default secret of routes that set none (WEBHOOK_SECRET). */
    secret: z.string().min(1).optional(),
    /** Routes by name (letters, digits, `_`, `-`). Config file only. */
    routes: z.record(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/), webhookRouteSchema).default({}),
    /** Failed authentications from one address within a minute before it is locked out. */
    lockout_failures: z.number().int().positive().default(10),
    /** Milliseconds an address stays locked out. */
    lockout_ms: z.number().int().positive().default(300_000),
    /** Milliseconds a run may take before it is reported failed (its result is then not delivered). */
    run_timeout_ms: z.number().int().positive().default(1_800_000),
    /** Run records kept in memory for `GET /webhooks/<route>/runs/<id>`, at most. */
    max_runs: z.number().int().positive().default(1_000),
    /** Milliseconds a run record is kept. */
    run_ttl_ms: z.number().int().positive().default(86_400_000),
    /** Tries of a result callback (`deliver: { url }`) before it is recorded as failed. */
    delivery_attempts: z.number().int().positive().max(10).default(4),
    /** Milliseconds before the first retry of a callback; doubles per retry (capped at 60 s). */
    delivery_retry_ms: z.number().int().positive().default(2_000),
  })
  .strict();

export const apiServerSchema = z
  .object({
    /** On by default: it is the zero-setup front door. */
    enabled: z.boolean().default(true),
    key: z.string().min(1).optional(),
    /** Bytes a request body may have at most (base64 images count here: about 4/3 of the image). */
    max_body_bytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1_048_576)
      .default(1_048_576),
    /**
     * Token of the operator dashboard (`/ui`, HERMES_DASHBOARD_TOKEN): its JSON under `/ui/api/`
     * asks for `Authorization: Bearer <token>`. Unset: only requests from a loopback address.
     */
    dashboard_token: z.string().min(16).optional(),
  })
  .strict();
