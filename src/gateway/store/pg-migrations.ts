import type { Logger } from 'pino';
import { HermesError } from '../../errors/hermes-error.js';
import type { PgPool } from './pg-database.js';

export interface PgMigration {
  /** 1, 2, 3… in order; recorded in `schema_migrations` once applied. */
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** First key of the advisory lock every process takes while it migrates (the second is the schema's hash). */
export const MIGRATION_LOCK_CLASS = 0x4865726d; // "Herm"

/*
 * Append only: a released migration is never edited, a change is a new entry. The tables match
 * the SQLite store's (sqlite-migrations.ts) area by area; times are epoch milliseconds (BIGINT),
 * JSON lives in JSONB, and `seq BIGSERIAL` columns give the insertion order SQLite's rowid gives.
 */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: 'gateway state: sessions, transcripts, ledger, pairing, parked turns, prompts, outbox',
    sql: `
      CREATE TABLE sessions (
        key TEXT PRIMARY KEY,
        session_id TEXT NOT NULL UNIQUE,
        title TEXT,
        model_override TEXT,
        toolset_overrides JSONB,
        yolo BOOLEAN NOT NULL DEFAULT false,
        created_at BIGINT NOT NULL,
        session_started_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX sessions_updated ON sessions (updated_at DESC, key);

      CREATE TABLE session_ids (
        id TEXT PRIMARY KEY,
        session_key TEXT NOT NULL,
        started_at BIGINT NOT NULL
      );
      CREATE INDEX session_ids_key ON session_ids (session_key);

      -- session_search uses PostgreSQL full-text search: the 'simple' configuration (no stemming,
      -- no stop words: it works the same for every language), over what people and the model said.
      CREATE TABLE messages (
        id BIGSERIAL PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES session_ids (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
        content TEXT,
        tool_calls JSONB,
        tool_call_id TEXT,
        name TEXT,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        created_at BIGINT NOT NULL,
        search TSVECTOR GENERATED ALWAYS AS (
          CASE WHEN role IN ('user', 'assistant') AND content IS NOT NULL
            THEN to_tsvector('simple'::regconfig, left(content, 100000)) END
        ) STORED,
        UNIQUE (session_id, seq)
      );
      CREATE INDEX messages_search ON messages USING GIN (search);

      CREATE TABLE processed_events (
        platform TEXT NOT NULL,
        event_id TEXT NOT NULL,
        seen_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        PRIMARY KEY (platform, event_id)
      );
      CREATE INDEX processed_events_expiry ON processed_events (expires_at);

      CREATE TABLE deliveries (
        receipt_key TEXT PRIMARY KEY,
        platform TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        message_ids JSONB NOT NULL,
        delivered_at BIGINT NOT NULL
      );
      CREATE INDEX deliveries_age ON deliveries (delivered_at);

      CREATE TABLE pairing_codes (
        platform TEXT NOT NULL,
        code TEXT NOT NULL,
        user_id TEXT NOT NULL,
        user_name TEXT,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        PRIMARY KEY (platform, code)
      );
      CREATE INDEX pairing_codes_expiry ON pairing_codes (expires_at);

      CREATE TABLE paired_users (
        platform TEXT NOT NULL,
        user_id TEXT NOT NULL,
        user_name TEXT,
        approved_by TEXT NOT NULL,
        approved_at BIGINT NOT NULL,
        PRIMARY KEY (platform, user_id)
      );

      CREATE TABLE parked_turns (
        turn_id TEXT PRIMARY KEY,
        session_key TEXT NOT NULL,
        state JSONB NOT NULL,
        reason TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT
      );
      CREATE INDEX parked_turns_session ON parked_turns (session_key, created_at);

      CREATE TABLE action_prompts (
        prompt_id TEXT PRIMARY KEY,
        seq BIGSERIAL NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('approval', 'clarify')),
        platform TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        thread_id TEXT,
        message_id TEXT NOT NULL,
        session_key TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        park_id TEXT NOT NULL,
        request_id TEXT,
        user_id TEXT,
        choices JSONB NOT NULL DEFAULT '[]',
        created_at BIGINT NOT NULL,
        expires_at BIGINT,
        resolved_at BIGINT,
        outcome TEXT,
        resolved_by TEXT
      );
      CREATE INDEX action_prompts_session ON action_prompts (session_key, created_at);
      CREATE INDEX action_prompts_request ON action_prompts (request_id) WHERE request_id IS NOT NULL;
      CREATE INDEX action_prompts_message ON action_prompts (platform, chat_id, message_id);
      CREATE INDEX action_prompts_pending ON action_prompts (expires_at) WHERE resolved_at IS NULL;

      CREATE TABLE delivery_failures (
        id BIGSERIAL PRIMARY KEY,
        platform TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        session_key TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        error TEXT NOT NULL,
        at BIGINT NOT NULL
      );
      CREATE INDEX delivery_failures_chat ON delivery_failures (platform, chat_id, id);

      CREATE TABLE home_channels (
        platform TEXT PRIMARY KEY,
        chat_id TEXT NOT NULL,
        thread_id TEXT,
        set_by TEXT NOT NULL,
        set_at BIGINT NOT NULL
      );

      CREATE TABLE outbox (
        id TEXT PRIMARY KEY,
        seq BIGSERIAL NOT NULL,
        platform TEXT NOT NULL,
        session_key TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('final', 'failed', 'parked')),
        origin JSONB NOT NULL,
        event_ids JSONB NOT NULL DEFAULT '[]',
        text TEXT NOT NULL,
        prompt JSONB,
        created_at BIGINT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_attempt_at BIGINT,
        completed_at BIGINT,
        outcome TEXT
      );
      CREATE INDEX outbox_pending ON outbox (platform, created_at, seq) WHERE completed_at IS NULL;
      CREATE INDEX outbox_age ON outbox (created_at);
    `,
  },
  {
    version: 2,
    name: 'tool state: memory entries and todo lists',
    sql: `
      -- The memory tool's entries (MEMORY.md / USER.md on SQLite deployments), per scope and target.
      CREATE TABLE memory_entries (
        scope TEXT NOT NULL,
        target TEXT NOT NULL CHECK (target IN ('memory', 'user')),
        entries JSONB NOT NULL DEFAULT '[]',
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (scope, target)
      );
      -- The todo tool's list of each session.
      CREATE TABLE todo_lists (
        session_key TEXT PRIMARY KEY,
        items JSONB NOT NULL DEFAULT '[]',
        updated_at BIGINT NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'clarify answers, webhook runs, scheduled tasks',
    sql: `
      -- The answer to a clarify question, stored in the UPDATE that resolves it.
      ALTER TABLE action_prompts ADD COLUMN answer TEXT;
      -- One row per accepted webhook delivery; lease_until: who delivers its result right now.
      CREATE TABLE webhook_runs (
        run_id TEXT PRIMARY KEY,
        seq BIGSERIAL,
        route TEXT NOT NULL,
        delivery_id TEXT NOT NULL,
        session_key TEXT NOT NULL,
        event_id TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        status TEXT NOT NULL,
        result TEXT,
        error TEXT,
        delivery TEXT NOT NULL,
        lease_until BIGINT
      );
      CREATE INDEX webhook_runs_event ON webhook_runs (event_id);
      CREATE INDEX webhook_runs_age ON webhook_runs (created_at);
      -- Scheduled tasks (cronjob tool, /cron), and one row per (job, due time) that was run.
      CREATE TABLE cron_jobs (
        id TEXT PRIMARY KEY,
        platform TEXT NOT NULL,
        chat_type TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        thread_id TEXT,
        session_key TEXT NOT NULL,
        created_by TEXT NOT NULL,
        created_by_name TEXT,
        name TEXT,
        prompt TEXT NOT NULL,
        schedule TEXT NOT NULL,
        schedule_kind TEXT NOT NULL CHECK (schedule_kind IN ('cron', 'every', 'at')),
        schedule_value TEXT NOT NULL,
        timezone TEXT NOT NULL,
        deliver TEXT NOT NULL CHECK (deliver IN ('origin', 'home')),
        state TEXT NOT NULL CHECK (state IN ('active', 'paused', 'done')),
        next_run_at BIGINT,
        last_run_at BIGINT,
        last_due_at BIGINT,
        run_count INTEGER NOT NULL DEFAULT 0,
        delivery_status TEXT CHECK (delivery_status IN ('pending', 'delivered', 'failed')),
        delivery_error TEXT,
        delivery_at BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX cron_jobs_chat ON cron_jobs (platform, chat_id, created_at);
      CREATE TABLE cron_runs (
        job_id TEXT NOT NULL,
        due_at BIGINT NOT NULL,
        claimed_at BIGINT NOT NULL,
        PRIMARY KEY (job_id, due_at)
      );
    `,
  },
  {
    version: 4,
    name: 'failed turns for the dashboard',
    sql: `
      -- One row per failed turn (any process, any platform), for the operator dashboard.
      CREATE TABLE turn_failures (
        turn_id TEXT PRIMARY KEY,
        session_key TEXT NOT NULL,
        platform TEXT NOT NULL,
        code TEXT NOT NULL,
        message TEXT NOT NULL,
        at BIGINT NOT NULL
      );
      CREATE INDEX turn_failures_at ON turn_failures (at);
      -- Outbox entries given up on, most recent first.
      CREATE INDEX outbox_abandoned ON outbox (completed_at) WHERE outcome = 'abandoned';
    `,
  },
  {
    version: 5,
    name: 'always-allowlist entries, spilled-over results and chat attachments',
    sql: `
      -- Entries an "always" approval added (config.yaml's command_allowlist still applies too).
      CREATE TABLE command_allowlist (
        entry TEXT PRIMARY KEY,
        added_at BIGINT NOT NULL
      );
      -- Files a turn may read on any worker: spilled-over tool results and chat attachments, keyed
      -- by the path the agent was given; expires_at: pruned after (NULL: kept).
      CREATE TABLE shared_files (
        path TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('spillover', 'attachment')),
        content BYTEA NOT NULL,
        size INTEGER NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT
      );
      CREATE INDEX shared_files_expiry ON shared_files (expires_at);
    `,
  },
];

export const PG_LATEST_SCHEMA_VERSION = PG_MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

/**
 * Brings the schema up to date; returns the versions this call applied. Every process runs it at
 * start: a session-level advisory lock (per schema) makes the first one migrate while the others
 * wait, then find nothing left to do. Each migration commits with its `schema_migrations` row, so
 * a crash leaves the previous version. A database migrated by a newer release is refused.
 */
export async function runPgMigrations(
  pool: PgPool,
  schema: string,
  logger: Logger,
  migrations: readonly PgMigration[] = PG_MIGRATIONS,
): Promise<number[]> {
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`).catch(async (error: unknown) => {
      // Two processes creating the schema at once: one wins, the other sees it exist.
      const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      if (exists.rowCount === 0) throw error;
    });
    await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, schema]);
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS "${schema}".schema_migrations (
           version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
      );
      const found = await client.query<{ version: number | null }>(
        `SELECT max(version) AS version FROM "${schema}".schema_migrations`,
      );
      const current = found.rows[0]?.version ?? 0;
      if (current > latest) {
        throw new HermesError(
          'store_failed',
          `database schema version ${current} is newer than this release supports (${latest}); upgrade hermes-gateway or restore a backup`,
        );
      }
      const applied: number[] = [];
      for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
        if (migration.version <= current) continue;
        await client.query('BEGIN');
        try {
          await client.query(`SET LOCAL search_path TO "${schema}"`);
          await client.query(migration.sql);
          await client.query(
            'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)',
            [migration.version, migration.name, Date.now()],
          );
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
        applied.push(migration.version);
        logger.info({ version: migration.version, migration: migration.name }, 'store migration applied');
      }
      return applied;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, schema]);
    }
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    client.release(broken);
  }
}
