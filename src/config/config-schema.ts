import { z } from 'zod';
import { mcpServersSchema } from './mcp-servers-schema.js';

/**
 * The one configuration schema. Every key is listed here with its default and unit; unknown keys
 * are rejected (`.strict()` everywhere) so a typo is an error naming the key, never a silent no-op.
 * Keys are snake_case as in Hermes' config.yaml.
 */

const csv = z.array(z.string().min(1));

const modelSchema = z
  .object({
    /** OpenAI-compatible endpoint (OpenAI, OpenRouter, Ollama, vLLM, llama.cpp …). */
    base_url: z.url().optional(),
    api_key: z.string().min(1).optional(),
    /** Model name for turns. Without one the gateway starts but cannot answer. */
    name: z.string().min(1).optional(),
    /** Model used by vision_analyze; must accept image input. Defaults to none (tool unavailable). */
    vision_model: z.string().min(1).optional(),
    /** Model for auxiliary calls (smart approvals); defaults to `name`. */
    auxiliary_model: z.string().min(1).optional(),
    /**
     * Milliseconds a model request may wait for its response, and the longest silence once the
     * streamed answer has begun; either way the request is abandoned and retried.
     */
    timeout_ms: z.number().int().positive().default(120_000),
  })
  .strict();

const approvalsSchema = z
  .object({
    /** manual: ask a human; smart: an auxiliary model decides clear cases; off: no dangerous tier. */
    mode: z.enum(['manual', 'smart', 'off']).default('manual'),
    /** Seconds a human has to decide; silence means deny. */
    timeout: z.number().int().positive().max(86_400).default(300),
    /** What unattended sessions (webhooks, API server) do with a dangerous command. */
    unattended_mode: z.enum(['deny', 'approve']).default('deny'),
    /** Case-insensitive globs that are refused in every mode, yolo included. */
    deny: z.array(z.string().min(1)).default([]),
    /** Operator text appended to the smart reviewer's instructions (trusted). */
    smart_policy: z.string().default(''),
    /** Consecutive smart denials in one session before the model is told to stop trying. */
    denial_breaker_threshold: z.number().int().positive().default(3),
    /** Process-wide yolo (HERMES_YOLO_MODE): dangerous commands run without asking. Floors still apply. */
    yolo: z.boolean().default(false),
  })
  .strict();

const sandboxSchema = z
  .object({
    /** Paths writable inside the sandbox besides the session working directory (`~/` allowed). */
    writable: z.array(z.string().min(1)).default([]),
    /** Paths of the hidden home (or elsewhere) shown read-only inside the sandbox (`~/` allowed). */
    readable: z.array(z.string().min(1)).default([]),
    /** false: no network at all inside the sandbox (a network namespace of its own). */
    network: z.boolean().default(true),
    /** The bubblewrap program (name on PATH or a path). */
    binary: z.string().min(1).default('bwrap'),
    /** CPU seconds per process (RLIMIT_CPU); 0: no limit. */
    cpu_seconds: z.number().int().min(0).default(1800),
    /** Megabytes of data memory per process (RLIMIT_DATA); 0: no limit. */
    memory_mb: z.number().int().min(0).default(4096),
    /** Processes of the gateway's user at most while a command forks (RLIMIT_NPROC); 0: no limit. */
    processes: z.number().int().min(0).default(2048),
    /** Megabytes one written file may reach (RLIMIT_FSIZE); 0: no limit. */
    file_size_mb: z.number().int().min(0).default(1024),
  })
  .strict();

const terminalSchema = z
  .object({
    /** Where commands run in chats (TERMINAL_ENV); `sandbox` runs them under bubblewrap. */
    backend: z.enum(['local', 'docker', 'ssh', 'sandbox']).default('local'),
    /** Working directory for commands (TERMINAL_CWD); defaults to the gateway's cwd. */
    cwd: z.string().min(1).optional(),
    /** Default seconds before a foreground command is killed. */
    timeout: z.number().int().positive().max(86_400).default(180),
    /** Characters of output kept per command (head and tail). */
    max_output_chars: z.number().int().positive().default(50_000),
    /** Password fed to `sudo -S` by the backend; without it `sudo -S` is refused. */
    sudo_password: z.string().min(1).optional(),
    /**
     * Environment variables commands receive beyond the base allowlist (PATH, HOME, LANG, LC_*…):
     * exact names or globs (`*`, `?`), as Hermes' `terminal.env_passthrough`. The gateway's own
     * secrets never pass: naming one is a configuration error, a glob skips them.
     */
    env_passthrough: z
      .array(z.string().regex(/^[A-Za-z0-9_*?]+$/, 'a variable name or a glob of one'))
      .default([]),
    /**
     * Where commands of unattended sessions run (API server, webhooks, delegated tasks): `auto` is
     * `sandbox` when `backend` is local or sandbox (the terminal is unavailable there when
     * bubblewrap cannot run), else `backend`. `local` runs them unsandboxed, explicitly.
     */
    unattended_backend: z.enum(['auto', 'local', 'docker', 'ssh', 'sandbox']).default('auto'),
    /** `session`: an approved command runs where the session's others do; `local`: out of the sandbox. */
    approved_backend: z.enum(['session', 'local']).default('session'),
    sandbox: sandboxSchema.default(() => sandboxSchema.parse({})),
    docker: z
      .object({
        container: z.string().min(1).optional(),
        user: z.string().min(1).optional(),
        workdir: z.string().min(1).optional(),
        /** Path of the docker CLI. */
        binary: z.string().min(1).default('docker'),
      })
      .strict()
      .default({ binary: 'docker' }),
    ssh: z
      .object({
        host: z.string().min(1).optional(),
        user: z.string().min(1).optional(),
        port: z.number().int().positive().max(65_535).default(22),
        identity_file: z.string().min(1).optional(),
        binary: z.string().min(1).default('ssh'),
      })
      .strict()
      .default({ port: 22, binary: 'ssh' }),
  })
  .strict();

const webSchema = z
  .object({
    /** Hosts, IPs or CIDRs that web_extract may reach although they are private/loopback. */
    allow_private: z.array(z.string().min(1)).default([]),
    /** Milliseconds per URL fetch. */
    timeout_ms: z.number().int().positive().default(15_000),
    /** Bytes read from one response at most. */
    max_bytes: z.number().int().positive().default(5_000_000),
    /** Characters of extracted text kept per URL. */
    max_chars_per_url: z.number().int().positive().default(40_000),
    /** Redirects followed per URL. */
    max_redirects: z.number().int().min(0).max(20).default(5),
    search: z
      .object({
        provider: z.enum(['none', 'brave', 'tavily', 'searxng']).default('none'),
        api_key: z.string().min(1).optional(),
        /** Base URL of a self-hosted SearXNG (JSON format enabled). */
        searxng_url: z.url().optional(),
        max_results: z.number().int().positive().max(50).default(5),
      })
      .strict()
      .default({ provider: 'none', max_results: 5 }),
  })
  .strict();

const toolsSchema = z
  .object({
    /** Characters above which a tool result is spilled to a file and replaced by a notice. */
    max_result_chars: z.number().int().positive().default(100_000),
    /** Per-tool thresholds (characters), capped at max_result_chars. */
    result_overrides: z.record(z.string(), z.number().int().positive()).default({}),
    /** Hours a spill-over file is kept. */
    spillover_ttl_hours: z.number().positive().default(24),
    /** Toolsets or tools enabled on top of the platform preset. */
    enabled_toolsets: csv.default([]),
    /** Toolsets removed from every preset (platform presets remove only their non-core tools). */
    disabled_toolsets: csv.default([]),
    /** Operator-defined toolsets: name → tools and includes. */
    custom_toolsets: z
      .record(
        z.string(),
        z
          .object({
            description: z.string().default(''),
            tools: csv.default([]),
            includes: csv.default([]),
          })
          .strict(),
      )
      .default({}),
    /** Extra plugin folders besides $HERMES_HOME/plugins. */
    plugin_dirs: csv.default([]),
  })
  .strict();

const telegramSchema = z
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

const discordSchema = z
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

const feishuSchema = z
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

const webhookSchema = z
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

const apiServerSchema = z
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

const displaySchema = z
  .object({
    /** What a message does while its session has a turn running: queue, interrupt or steer. */
    busy_input_mode: z.enum(['queue', 'interrupt', 'steer']).default('queue'),
    /** Tell the user what happened to a message that arrived mid-turn. */
    busy_ack_enabled: z.boolean().default(true),
    /** Tool progress in chat: `off`, `new` (one line per new tool) or `all` (every call), one message edited in place. */
    tool_progress: z.enum(['off', 'new', 'all']).default('new'),
  })
  .strict();

const queueSchema = z
  .object({
    /** Turns of different sessions run at once in one process. */
    concurrency: z.number().int().positive().max(256).default(8),
    /** Milliseconds a worker's session lock lasts without renewal (same on every worker). */
    lock_duration_ms: z.number().int().min(1000).default(30_000),
    /** Milliseconds between stalled-job checks (same on every worker). */
    stalled_interval_ms: z.number().int().min(1000).default(30_000),
    /**
     * BullMQ mode: a message for an idle session runs in the process that received it when that
     * process has a free worker slot (no job round trip); false sends every turn through a job.
     */
    local_first: z.boolean().default(true),
    /** Runs of one turn (failures and crashes) before the user is told it failed. */
    max_attempts: z.number().int().positive().max(10).default(3),
    /** Milliseconds running turns get to finish at shutdown before they are aborted. */
    shutdown_grace_ms: z.number().int().min(0).default(30_000),
    /** Milliseconds an API request waits for its answer before 504. */
    api_timeout_ms: z.number().int().positive().default(600_000),
  })
  .strict();

const cronSchema = z
  .object({
    /** Time zone of new scheduled tasks (IANA name); default: the machine's. */
    timezone: z.string().min(1).max(64).optional(),
    /** Shortest time between two runs of one task, in seconds. */
    min_interval_seconds: z.number().int().min(1).default(60),
    /** Scheduled tasks one chat may have (paused ones count). */
    max_jobs_per_chat: z.number().int().positive().max(1000).default(20),
  })
  .strict();

export const configSchema = z
  .object({
    model: modelSchema.default({ timeout_ms: 120_000 }),
    http: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(0).max(65_535).default(8642),
        /**
         * Who may read `/metrics` and `/readyz`: `key` asks for the API key (API_SERVER_KEY),
         * `none` leaves them open, `auto` asks for the key when one is set and the server listens
         * beyond loopback. `/healthz` is always open.
         */
        metrics_auth: z.enum(['auto', 'key', 'none']).default('auto'),
      })
      .strict()
      .default({ host: '127.0.0.1', port: 8642, metrics_auth: 'auto' }),
    redis: z
      .object({
        url: z.string().min(1).optional(),
        /** First part of every key the gateway writes (queue, approvals, events); one per deployment. */
        prefix: z
          .string()
          .regex(/^[A-Za-z0-9_.-]{1,64}$/)
          .default('hermes'),
        /** Milliseconds start-up waits for Redis to answer before it gives up with an error. */
        connect_timeout_ms: z.number().int().positive().max(600_000).default(10_000),
      })
      .strict()
      .default({ prefix: 'hermes', connect_timeout_ms: 10_000 }),
    /**
     * Shared state on PostgreSQL (DATABASE_URL): sessions, transcripts, receipts, pairing, parked
     * turns, prompts, the outbox… so workers on machines that share no disk serve any
     * session. Without it the state lives in SQLite in HERMES_HOME (the zero-setup default).
     */
    database: z
      .object({
        url: z
          .string()
          .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
          .optional(),
        /** Connections each process keeps open at most. */
        pool_max: z.number().int().min(1).max(200).default(10),
        /** Schema holding the tables (created when missing); one per deployment sharing a database. */
        schema: z
          .string()
          .regex(/^[a-z_][a-z0-9_]{0,62}$/)
          .default('public'),
      })
      .strict()
      .default({ pool_max: 10, schema: 'public' }),
    logging: z
      .object({
        level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
      })
      .strict()
      .default({ level: 'info' }),
    agent: z
      .object({
        /** Model calls per turn at most. */
        max_turns: z.number().int().positive().default(90),
        /**
         * Characters of conversation sent to the model at most (≈ 4 characters per token, so the
         * default is about 100k tokens); older turns beyond it are left out with a marker.
         */
        context_budget_chars: z.number().int().min(10_000).default(400_000),
      })
      .strict()
      .default({ max_turns: 90, context_budget_chars: 400_000 }),
    approvals: approvalsSchema.default(() => approvalsSchema.parse({})),
    /** Permanently approved finding keys, exact commands or globs (non-compound commands only). */
    command_allowlist: z.array(z.string().min(1)).default([]),
    terminal: terminalSchema.default(() => terminalSchema.parse({})),
    web: webSchema.default(() => webSchema.parse({})),
    tools: toolsSchema.default(() => toolsSchema.parse({})),
    gateway: z
      .object({
        /** Users allowed on every platform (`platform:user` or a bare id). */
        allowed_users: csv.default([]),
        /** Let anyone talk to the bot on every chat platform (no allowlist, no pairing). */
        allow_all: z.boolean().default(false),
        /** Admins on every platform. */
        admin_users: csv.default([]),
        /** In groups, answer `mentioned` (when @-mentioned or replied to) or `all` messages. */
        group_reply: z.enum(['mentioned', 'all']).default('mentioned'),
        /** Commands non-admins may run besides /help and /whoami. */
        user_commands: csv.default([
          'new',
          'status',
          'stop',
          'approve',
          'deny',
          'queue',
          'usage',
          'model',
          'tools',
          'cron',
        ]),
      })
      .strict()
      .default(() => ({
        allowed_users: [],
        allow_all: false,
        admin_users: [],
        group_reply: 'mentioned' as const,
        user_commands: [
          'new',
          'status',
          'stop',
          'approve',
          'deny',
          'queue',
          'usage',
          'model',
          'tools',
          'cron',
        ],
      })),
    display: displaySchema.default(() => displaySchema.parse({})),
    queue: queueSchema.default(() => queueSchema.parse({})),
    cron: cronSchema.default(() => cronSchema.parse({})),
    platforms: z
      .object({
        telegram: telegramSchema.default(() => telegramSchema.parse({})),
        discord: discordSchema.default(() => discordSchema.parse({})),
        feishu: feishuSchema.default(() => feishuSchema.parse({})),
        webhook: webhookSchema.default(() => webhookSchema.parse({})),
        api_server: apiServerSchema.default(() => apiServerSchema.parse({})),
      })
      .strict()
      .default(() => ({
        telegram: telegramSchema.parse({}),
        discord: discordSchema.parse({}),
        feishu: feishuSchema.parse({}),
        webhook: webhookSchema.parse({}),
        api_server: apiServerSchema.parse({}),
      })),
    /** External MCP servers, by name: their tools form toolset `mcp-<name>` (docs/tools-mcp.md). */
    mcp_servers: mcpServersSchema.default({}),
  })
  .strict();

export type ConfigInput = z.input<typeof configSchema>;
type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
export type Config = DeepReadonly<z.output<typeof configSchema> & { home: string; configPath: string }>;

/** Dot paths whose values are secrets: masked by `doctor`, redacted from logs. */
export const SECRET_PATHS: readonly string[] = [
  'model.api_key',
  'redis.url',
  'database.url',
  'terminal.sudo_password',
  'web.search.api_key',
  'platforms.telegram.bot_token',
  'platforms.telegram.webhook_secret',
  'platforms.discord.bot_token',
  'platforms.feishu.app_secret',
  'platforms.feishu.encrypt_key',
  'platforms.feishu.verification_token',
  'platforms.webhook.secret',
  'platforms.webhook.routes.*.secret',
  'platforms.api_server.key',
  'platforms.api_server.dashboard_token',
  'mcp_servers.*.env.*',
  'mcp_servers.*.headers.*',
];
