import type { Database } from 'better-sqlite3';
import type { Logger } from 'pino';
import { HermesError } from '../../errors/hermes-error.js';

export interface Migration {
  /** 1, 2, 3… in order; stored in `PRAGMA user_version` once applied. */
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/*
 * Append only: a released migration is never edited, a change is a new entry. Each runs in its
 * own IMMEDIATE transaction together with the user_version bump, so a crash leaves the schema at
 * the previous version and a second process opening the file at the same time waits and then
 * sees the work done.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, transcript, ledger, pairing, parked turns',
    sql: `
      CREATE TABLE sessions (
        key TEXT PRIMARY KEY,
        session_id TEXT NOT NULL UNIQUE,
        title TEXT,
        model_override TEXT,
        toolset_overrides TEXT,
        yolo INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        session_started_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX sessions_updated ON sessions (updated_at);

      CREATE TABLE session_ids (
        id TEXT PRIMARY KEY,
        session_key TEXT NOT NULL,
        started_at INTEGER NOT NULL
      );
      CREATE INDEX session_ids_key ON session_ids (session_key);

      CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES session_ids (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
        content TEXT,
        tool_calls TEXT,
        tool_call_id TEXT,
        name TEXT,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        created_at INTEGER NOT NULL,
        UNIQUE (session_id, seq)
      );

      -- Search index over what people and the model said (tool output stays out: large, noisy).
      -- Its content table is a view with the same filter as the triggers, so the FTS5 'rebuild'
      -- command indexes the same rows. The trigram tokenizer matches substrings in any script.
      CREATE VIEW searchable_messages AS
        SELECT id, content FROM messages WHERE content IS NOT NULL AND role IN ('user', 'assistant');
      CREATE VIRTUAL TABLE messages_fts USING fts5 (
        content,
        content = 'searchable_messages',
        content_rowid = 'id',
        tokenize = 'trigram remove_diacritics 1'
      );
      CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages
        WHEN new.content IS NOT NULL AND new.role IN ('user', 'assistant') BEGIN
        INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
      END;
      CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
        WHEN old.content IS NOT NULL AND old.role IN ('user', 'assistant') BEGIN
        INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
      END;
      CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, role ON messages BEGIN
        INSERT INTO messages_fts (messages_fts, rowid, content)
          SELECT 'delete', old.id, old.content
          WHERE old.content IS NOT NULL AND old.role IN ('user', 'assistant');
        INSERT INTO messages_fts (rowid, content)
          SELECT new.id, new.content
          WHERE new.content IS NOT NULL AND new.role IN ('user', 'assistant');
      END;

      CREATE TABLE processed_events (
        platform TEXT NOT NULL,
        event_id TEXT NOT NULL,
        seen_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (platform, event_id)
      );
      CREATE INDEX processed_events_expiry ON processed_events (expires_at);

      CREATE TABLE deliveries (
        receipt_key TEXT PRIMARY KEY,
        platform TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        message_ids TEXT NOT NULL,
        delivered_at INTEGER NOT NULL
      );
      CREATE INDEX deliveries_age ON deliveries (delivered_at);

      CREATE TABLE pairing_codes (
        platform TEXT NOT NULL,
        code TEXT NOT NULL,
        user_id TEXT NOT NULL,
        user_name TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (platform, code)
      );
      CREATE INDEX pairing_codes_expiry ON pairing_codes (expires_at);

      CREATE TABLE paired_users (
        platform TEXT NOT NULL,
        user_id TEXT NOT NULL,
        user_name TEXT,
        approved_by TEXT NOT NULL,
        approved_at INTEGER NOT NULL,
        PRIMARY KEY (platform, user_id)
      );

      CREATE TABLE parked_turns (
        turn_id TEXT PRIMARY KEY,
        session_key TEXT NOT NULL,
        state TEXT NOT NULL,
        reason TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER
      );
      CREATE INDEX parked_turns_session ON parked_turns (session_key, created_at);
    `,
  },
  {
    version: 2,
    name: 'approvals (embedded mode)',
    sql: `
      CREATE TABLE approval_requests (
        id TEXT PRIMARY KEY,
        session_key TEXT NOT NULL,
        command_hash TEXT NOT NULL,
        request TEXT NOT NULL,
        allow_permanent INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        decision TEXT,
        claimed INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX approval_requests_pending ON approval_requests (session_key, command_hash)
        WHERE decision IS NULL;
      CREATE INDEX approval_requests_expiry ON approval_requests (expires_at);

      CREATE TABLE approval_grants (
        session_key TEXT NOT NULL,
        finding_key TEXT NOT NULL,
        until INTEGER NOT NULL,
        PRIMARY KEY (session_key, finding_key)
      );

      CREATE TABLE approval_yolo (
        session_key TEXT PRIMARY KEY,
        until INTEGER NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'action prompts and delivery failures',
    sql: `
      -- Approval and clarify prompts shown in a chat, so a click or a reply (even after a
      -- restart) finds the parked turn it answers. resolved_at IS NULL means still open.
      CREATE TABLE action_prompts (
        prompt_id TEXT PRIMARY KEY,
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
        choices TEXT NOT NULL DEFAULT '[]',
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        resolved_at INTEGER,
        outcome TEXT,
        resolved_by TEXT
      );
      CREATE INDEX action_prompts_session ON action_prompts (session_key, created_at);
      CREATE INDEX action_prompts_request ON action_prompts (request_id) WHERE request_id IS NOT NULL;
      CREATE INDEX action_prompts_message ON action_prompts (platform, chat_id, message_id);
      CREATE INDEX action_prompts_pending ON action_prompts (expires_at) WHERE resolved_at IS NULL;

      -- Answers that could not be delivered for good; taken (and announced) on the next contact.
      CREATE TABLE delivery_failures (
        id INTEGER PRIMARY KEY,
        platform TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        session_key TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        error TEXT NOT NULL,
        at INTEGER NOT NULL
      );
      CREATE INDEX delivery_failures_chat ON delivery_failures (platform, chat_id, id);
    `,
  },
  {
    version: 4,
    name: 'home channels',
    sql: `
      -- One home channel per platform (set with /sethome): where notifications addressed to "home" go.
      CREATE TABLE home_channels (
        platform TEXT PRIMARY KEY,
        chat_id TEXT NOT NULL,
        thread_id TEXT,
        set_by TEXT NOT NULL,
        set_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 5,
    name: 'chat outbox',
    sql: `
      -- Answers and failure notices for chat platforms, written by the worker before the live
      -- event is published, so a gateway that missed the event (down, restarting) still delivers
      -- them. completed_at IS NULL means still to deliver; outcome is 'delivered' or 'abandoned'.
      CREATE TABLE outbox (
        id TEXT PRIMARY KEY,
        platform TEXT NOT NULL,
        session_key TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('final', 'failed')),
        origin TEXT NOT NULL,
        event_ids TEXT NOT NULL DEFAULT '[]',
        text TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_attempt_at INTEGER,
        completed_at INTEGER,
        outcome TEXT
      );
      CREATE INDEX outbox_pending ON outbox (platform, created_at) WHERE completed_at IS NULL;
      CREATE INDEX outbox_age ON outbox (created_at);
    `,
  },
  {
    version: 6,
    name: 'deferred search indexing',
    sql: `
      -- Appending a message no longer indexes it in the same transaction (the trigram insert cost
      -- about as much as the append itself). messages_fts now holds exactly the searchable rows
      -- with id <= indexed_to; the rows above are indexed in batches by the store (before every
      -- search, periodically, and on close), which then moves indexed_to up.
      CREATE TABLE messages_fts_watermark (
        singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
        indexed_to INTEGER NOT NULL
      );
      -- The old insert trigger has indexed every row there is.
      INSERT INTO messages_fts_watermark (singleton, indexed_to)
        SELECT 1, coalesce(max(id), 0) FROM messages;
      DROP TRIGGER messages_fts_insert;
      DROP TRIGGER messages_fts_delete;
      DROP TRIGGER messages_fts_update;
      -- Ids are reused once the highest rows are deleted, so a new row can land at or below the
      -- watermark: index that one at once (appends above the watermark skip this trigger's body).
      CREATE TRIGGER messages_fts_insert_below AFTER INSERT ON messages
        WHEN new.content IS NOT NULL AND new.role IN ('user', 'assistant')
          AND new.id <= (SELECT indexed_to FROM messages_fts_watermark) BEGIN
        INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
      END;
      -- Rows above the watermark are not in the index: an FTS 'delete' for them would damage it.
      CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
        WHEN old.content IS NOT NULL AND old.role IN ('user', 'assistant')
          AND old.id <= (SELECT indexed_to FROM messages_fts_watermark) BEGIN
        INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
      END;
      CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, role ON messages BEGIN
        INSERT INTO messages_fts (messages_fts, rowid, content)
          SELECT 'delete', old.id, old.content
          WHERE old.content IS NOT NULL AND old.role IN ('user', 'assistant')
            AND old.id <= (SELECT indexed_to FROM messages_fts_watermark);
        INSERT INTO messages_fts (rowid, content)
          SELECT new.id, new.content
          WHERE new.content IS NOT NULL AND new.role IN ('user', 'assistant')
            AND new.id <= (SELECT indexed_to FROM messages_fts_watermark);
      END;
    `,
  },
  {
    version: 7,
    name: 'prompts in the outbox',
    sql: `
      -- Approval and clarify prompts of parked turns go through the outbox too (kind 'parked',
      -- id 'parked:<parkId>', the prompt's reason, park id and payload in the new prompt column),
      -- so a gateway that missed the live event still shows them. SQLite cannot change a CHECK
      -- constraint in place: the table is rebuilt with its rows.
      CREATE TABLE outbox_v7 (
        id TEXT PRIMARY KEY,
        platform TEXT NOT NULL,
        session_key TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('final', 'failed', 'parked')),
        origin TEXT NOT NULL,
        event_ids TEXT NOT NULL DEFAULT '[]',
        text TEXT NOT NULL,
        prompt TEXT,
        created_at INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_attempt_at INTEGER,
        completed_at INTEGER,
        outcome TEXT
      );
      INSERT INTO outbox_v7 (id, platform, session_key, turn_id, kind, origin, event_ids, text,
          created_at, attempts, last_attempt_at, completed_at, outcome)
        SELECT id, platform, session_key, turn_id, kind, origin, event_ids, text,
          created_at, attempts, last_attempt_at, completed_at, outcome
        FROM outbox;
      DROP TABLE outbox;
      ALTER TABLE outbox_v7 RENAME TO outbox;
      CREATE INDEX outbox_pending ON outbox (platform, created_at) WHERE completed_at IS NULL;
      CREATE INDEX outbox_age ON outbox (created_at);
    `,
  },
  {
    version: 8,
    name: 'clarify answers kept with their resolution',
    sql: `
      -- The answer to a clarify question, stored in the same UPDATE that resolves it: a prompt
      -- answered before its message id was saved is edited to show the answer afterwards.
      ALTER TABLE action_prompts ADD COLUMN answer TEXT;
    `,
  },
  {
    version: 9,
    name: 'webhook runs',
    sql: `
      -- One row per accepted webhook delivery: what GET /webhooks/<route>/runs/<id> reports, and
      -- whether its result was delivered. lease_until: who delivers it right now (the process
      -- that took the lease, until then), so two processes never deliver the same result at once.
      CREATE TABLE webhook_runs (
        run_id TEXT PRIMARY KEY,
        route TEXT NOT NULL,
        delivery_id TEXT NOT NULL,
        session_key TEXT NOT NULL,
        event_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        status TEXT NOT NULL,
        result TEXT,
        error TEXT,
        delivery TEXT NOT NULL,
        lease_until INTEGER
      );
      CREATE INDEX webhook_runs_event ON webhook_runs (event_id);
      CREATE INDEX webhook_runs_age ON webhook_runs (created_at);
    `,
  },
  {
    version: 10,
    name: 'scheduled tasks',
    sql: `
      -- Scheduled tasks (cronjob tool, /cron): one row per job, with how its last delivery went.
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
        next_run_at INTEGER,
        last_run_at INTEGER,
        last_due_at INTEGER,
        run_count INTEGER NOT NULL DEFAULT 0,
        delivery_status TEXT CHECK (delivery_status IN ('pending', 'delivered', 'failed')),
        delivery_error TEXT,
        delivery_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX cron_jobs_chat ON cron_jobs (platform, chat_id, created_at);
      -- One row per (job, due time) that was run: the claim that keeps workers from running it twice.
      CREATE TABLE cron_runs (
        job_id TEXT NOT NULL,
        due_at INTEGER NOT NULL,
        claimed_at INTEGER NOT NULL,
        PRIMARY KEY (job_id, due_at)
      );
    `,
  },
  {
    version: 11,
    name: 'failed turns for the dashboard',
    sql: `
      -- One row per failed turn (any process, any platform), for the operator dashboard.
      CREATE TABLE turn_failures (
        turn_id TEXT PRIMARY KEY,
        session_key TEXT NOT NULL,
        platform TEXT NOT NULL,
        code TEXT NOT NULL,
        message TEXT NOT NULL,
        at INTEGER NOT NULL
      );
      CREATE INDEX turn_failures_at ON turn_failures (at);
      -- Outbox entries given up on, most recent first.
      CREATE INDEX outbox_abandoned ON outbox (completed_at) WHERE outcome = 'abandoned';
    `,
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

function userVersion(db: Database): number {
  const value = db.pragma('user_version', { simple: true });
  return typeof value === 'number' ? value : Number(value);
}

/**
 * Brings the schema up to date; returns the versions applied by this call. Refuses a file
 * written by a newer release (its tables may mean something this code does not know).
 */
export function runMigrations(
  db: Database,
  logger: Logger,
  migrations: readonly Migration[] = MIGRATIONS,
): number[] {
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const found = userVersion(db);
  if (found > latest) {
    throw new HermesError(
      'store_failed',
      `database schema version ${found} is newer than this release supports (${latest}); upgrade hermes-gateway or restore a backup`,
    );
  }
  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    const apply = db.transaction(() => {
      // Read again inside the write lock: another process may have migrated meanwhile.
      if (userVersion(db) >= migration.version) return false;
      db.exec(migration.sql);
      db.pragma(`user_version = ${Math.trunc(migration.version)}`);
      return true;
    });
    if (apply.immediate()) {
      applied.push(migration.version);
      logger.info({ version: migration.version, migration: migration.name }, 'store migration applied');
    }
  }
  return applied;
}
