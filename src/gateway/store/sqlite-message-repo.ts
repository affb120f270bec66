import type { Database } from 'better-sqlite3';
import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import { assertSessionId } from '../session-key.js';
import { makeSnippet, planSearch } from './fts-query.js';
import type { MessageIndexer } from './sqlite-message-indexer.js';
import {
  clampLimit,
  keyPrefixCondition,
  orNull,
  orUndefined,
  parseJsonColumn,
  parseRows,
  prefixParams,
} from './sqlite-rows.js';
import type {
  ListMessagesOptions,
  MessageRole,
  NewMessage,
  SearchHit,
  SearchMessagesOptions,
  StoredMessage,
  ToolCallRecord,
} from './transcript-store.js';

const ROLES = ['system', 'user', 'assistant', 'tool'] as const satisfies readonly MessageRole[];

const toolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
const toolCallList = z.array(toolCallSchema);

const tokenCount = z.number().int().nonnegative().optional();
const newMessageSchema = z.object({
  role: z.enum(ROLES),
  content: z.string().nullable(),
  toolCalls: toolCallList.optional(),
  toolCallId: z.string().optional(),
  name: z.string().optional(),
  promptTokens: tokenCount,
  completionTokens: tokenCount,
  createdAt: z.number().int().optional(),
});

const messageRow = z.object({
  session_id: z.string(),
  seq: z.number(),
  role: z.enum(ROLES),
  content: z.string().nullable(),
  tool_calls: z.string().nullable(),
  tool_call_id: z.string().nullable(),
  name: z.string().nullable(),
  prompt_tokens: z.number().nullable(),
  completion_tokens: z.number().nullable(),
  created_at: z.number(),
});
type MessageRow = z.infer<typeof messageRow>;

const searchRow = z.object({
  session_key: z.string(),
  session_id: z.string(),
  seq: z.number(),
  role: z.enum(ROLES),
  content: z.string(),
  created_at: z.number(),
});

const COLUMNS =
  'session_id, seq, role, content, tool_calls, tool_call_id, name, prompt_tokens, completion_tokens, created_at';
const SEARCHABLE_ROLES: readonly MessageRole[] = ['user', 'assistant'];

export interface MessageRepo {
  append(sessionId: string, messages: readonly NewMessage[]): StoredMessage[];
  list(sessionId: string, options: ListMessagesOptions): StoredMessage[];
  count(sessionId: string): number;
  search(query: string, options: SearchMessagesOptions): SearchHit[];
}

/**
 * Transcripts: one row per message with a per-session `seq`. The FTS index trails the appends
 * (see `createMessageIndexer`); every full-text search first brings it up to date, so a search
 * never misses a message. `onAppend` lets the session repo mark the session active in the same
 * transaction.
 */
export function createMessageRepo(
  db: Database,
  now: () => number,
  onAppend: (sessionId: string, at: number) => void,
  indexer: Pick<MessageIndexer, 'catchUp'>,
): MessageRepo {
  // An unknown session id is caught by the messages.session_id foreign key (no lookup per append).
  if (db.pragma('foreign_keys', { simple: true }) !== 1) {
    throw new HermesError('store_failed', 'the message repo needs foreign_keys = ON');
  }
  const lastSeq = db.prepare('SELECT coalesce(max(seq), 0) FROM messages WHERE session_id = ?').pluck();
  const insert = db.prepare(
    `INSERT INTO messages (${COLUMNS}) VALUES (@session_id, @seq, @role, @content, @tool_calls,
       @tool_call_id, @name, @prompt_tokens, @completion_tokens, @created_at)`,
  );
  // `LIMIT (SELECT ?)`, not `LIMIT ?`: SQLite's planner looks at a bare LIMIT parameter, so every
  // new binding expires the statement and the next run prepares it again (about 7 µs each time).
  const listHead = db.prepare(
    `SELECT ${COLUMNS} FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT (SELECT ?)`,
  );
  const listTail = db.prepare(
    `SELECT * FROM (SELECT ${COLUMNS} FROM messages WHERE session_id = ? AND seq > ?
       ORDER BY seq DESC LIMIT (SELECT ?)) ORDER BY seq`,
  );
  const countStmt = db.prepare('SELECT count(*) FROM messages WHERE session_id = ?').pluck();
  const scope = `${keyPrefixCondition('s.session_key')}
    AND (@exclude IS NULL OR m.session_id <> @exclude)
    AND m.role IN (SELECT value FROM json_each(@roles))`;
  const shortTerms = `(SELECT count(*) FROM json_each(@likes) l WHERE m.content LIKE l.value ESCAPE '\\') =
    json_array_length(@likes)`;
  const searchFts = db.prepare(
    `SELECT s.session_key, m.session_id, m.seq, m.role, m.content, m.created_at
     FROM messages_fts f
     JOIN messages m ON m.id = f.rowid
     JOIN session_ids s ON s.id = m.session_id
     WHERE messages_fts MATCH @match AND ${scope} AND ${shortTerms}
     ORDER BY bm25(messages_fts), m.id DESC
     LIMIT (SELECT @limit)`,
  );
  const searchLike = db.prepare(
    `SELECT s.session_key, m.session_id, m.seq, m.role, m.content, m.created_at
     FROM messages m
     JOIN session_ids s ON s.id = m.session_id
     WHERE m.content IS NOT NULL AND ${scope} AND ${shortTerms}
     ORDER BY m.id DESC
     LIMIT (SELECT @limit)`,
  );

  const appendTx = db.transaction((sessionId: string, messages: readonly NewMessage[]) => {
    const at = now();
    let seq = Number(lastSeq.get(sessionId));
    const stored: StoredMessage[] = [];
    for (const message of messages) {
      seq += 1;
      const toolCalls =
        message.toolCalls === undefined || message.toolCalls.length === 0 ? undefined : message.toolCalls;
      const createdAt = message.createdAt ?? at;
      insert.run({
        session_id: sessionId,
        seq,
        role: message.role,
        content: message.content,
        tool_calls: toolCalls === undefined ? null : JSON.stringify(toolCalls),
        tool_call_id: orNull(message.toolCallId),
        name: orNull(message.name),
        prompt_tokens: orNull(message.promptTokens),
        completion_tokens: orNull(message.completionTokens),
        created_at: createdAt,
      } satisfies MessageRow);
      // Built from the validated input: reading the row back (and re-parsing its JSON) adds nothing.
      stored.push({
        sessionId,
        seq,
        role: message.role,
        content: message.content,
        toolCalls,
        toolCallId: message.toolCallId,
        name: message.name,
        promptTokens: message.promptTokens,
        completionTokens: message.completionTokens,
        createdAt,
      });
    }
    onAppend(sessionId, at);
    return stored;
  });

  return {
    append: (sessionId, messages) => {
      assertSessionId(sessionId);
      if (messages.length === 0) return [];
      const checked = messages.map((message) => {
        const parsed = newMessageSchema.safeParse(message);
        if (!parsed.success) {
          throw new HermesError('store_failed', `invalid transcript message: ${parsed.error.message}`, {
            cause: parsed.error,
          });
        }
        return parsed.data;
      });
      try {
        return appendTx.immediate(sessionId, checked);
      } catch (error) {
        if (isForeignKeyError(error)) {
          throw new HermesError('store_failed', `unknown session id ${sessionId}: create the session first`, {
            cause: error,
          });
        }
        throw error;
      }
    },
    list: (sessionId, options) => {
      assertSessionId(sessionId);
      const after = options.afterSeq === undefined ? 0 : Math.trunc(options.afterSeq);
      const limit = options.limit === undefined ? -1 : Math.max(0, Math.trunc(options.limit));
      const stmt = options.tail === true && limit >= 0 ? listTail : listHead;
      return parseRows(messageRow, stmt.all(sessionId, after, limit), 'message').map(toMessage);
    },
    count: (sessionId) => Number(countStmt.get(assertSessionId(sessionId))),
    search: (query, options) => {
      const plan = planSearch(query);
      if (plan === undefined) return [];
      const roles = (options.roles ?? SEARCHABLE_ROLES).filter((r) => SEARCHABLE_ROLES.includes(r));
      if (roles.length === 0) return [];
      const params = {
        ...prefixParams(options.sessionKeyPrefix),
        exclude: options.excludeSessionId ?? null,
        roles: JSON.stringify(roles),
        likes: JSON.stringify(plan.likes),
        limit: clampLimit(options.limit, 20, 200),
      };
      let rows: unknown[];
      if (plan.match === undefined) {
        rows = searchLike.all(params);
      } else {
        indexer.catchUp();
        rows = searchFts.all({ ...params, match: plan.match });
      }
      return parseRows(searchRow, rows, 'search hit').map((row) => ({
        sessionKey: row.session_key,
        sessionId: row.session_id,
        seq: row.seq,
        role: row.role,
        snippet: makeSnippet(row.content, plan.terms),
        createdAt: row.created_at,
      }));
    },
  };
}

function isForeignKeyError(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

function toMessage(row: MessageRow): StoredMessage {
  const toolCalls: readonly ToolCallRecord[] | undefined =
    row.tool_calls === null ? undefined : parseJsonColumn(toolCallList, row.tool_calls, 'tool calls');
  return {
    sessionId: row.session_id,
    seq: row.seq,
    role: row.role,
    content: row.content,
    toolCalls,
    toolCallId: orUndefined(row.tool_call_id),
    name: orUndefined(row.name),
    promptTokens: orUndefined(row.prompt_tokens),
    completionTokens: orUndefined(row.completion_tokens),
    createdAt: row.created_at,
  };
}
