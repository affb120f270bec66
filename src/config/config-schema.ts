import { z } from 'zod';
import { mcpServersSchema } from './mcp-servers-schema.js';
import {
  apiServerSchema,
  discordSchema,
  feishuSchema,
  telegramSchema,
  webhookSchema,
} from './platform-schemas.js';

export type { WebhookRouteConfig } from './platform-schemas.js';

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
        /**
         * Bytes of one spilled-over tool result kept in the database at most (so read_file works
         * on any worker); a larger result keeps only its preview.
         */
        spillover_max_bytes: z.number().int().positive().max(256_000_000).default(4_194_304),
        /**
         * Bytes of one chat attachment kept in the database at most (so any worker can open it);
         * a larger file is not kept and the agent is told it was too large to share.
         */
        attachment_max_bytes: z.number().int().positive().max(256_000_000).default(10_485_760),
        /** Days a chat attachment is kept in the database. */
        attachment_ttl_days: z.number().positive().default(30),
      })
      .strict()
      .default({
        pool_max: 10,
        schema: 'public',
        spillover_max_bytes: 4_194_304,
        attachment_max_bytes: 10_485_760,
        attachment_ttl_days: 30,
      }),
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
