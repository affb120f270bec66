import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import { assertSessionId } from '../session-key.js';
import { makeSnippet, planSearch } from './fts-query.js';
import { inPgTransaction, type PgPool } from './pg-database.js';
import { pgKeyPrefixCondition } from './pg-session-repo.js';
import { pgJson, pgText } from './pg-values.js';
import { clampLimit, orUndefined, parseRows, prefixParams } from './sqlite-rows.js';
import type {
  ListMessagesOptions,
  MessageRole,
  NewMessage,
  SearchHit,
  SearchMessagesOptions,
  StoredMessage,
} from './transcript-store.js';

const ROLES = ['system', 'user', 'assistant', 'tool'] as const satisfies readonly MessageRole[];
const SEARCHABLE_ROLES: readonly MessageRole[] = ['user', 'assistant'];

const toolCallList = z.array(
  z.object({
    id: z.string(),
    type: z.literal('function'),
    function: z.object({ name: z.string(), arguments: z.string() }),
  }),
);
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
  tool_calls: toolCallList.nullable(),
  tool_call_id: z.string().nullable(),
  name: z.string().nullable(),
  prompt_tokens: z.number().nullable(),
  completion_tokens: z.number().nullable(),
  created_at: z.number(),
});
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
const PARAMS_PER_ROW = 10;

/*
 * session_search on PostgreSQL full-text search. Each term of three or more characters becomes the
 * prefix query of its lexemes (as PostgreSQL's 'simple' parser splits it): `deploy` finds
 * "deploy", "deployment" and "Deploy!"; all terms must match; ranked by ts_rank. Terms shorter
 * than three characters, and terms the parser finds no word in (`!!!`), must occur as
 * case-insensitive substrings, as on SQLite. Nothing of the input is parsed as query syntax:
 * lexemes are quoted, LIKE patterns escaped.
 */
const SEARCH_SQL = `
  WITH terms AS (SELECT t FROM unnest($1::text[]) AS t),
  query AS (
    SELECT to_tsquery('simple', string_agg(
      '''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || ''':*', ' & ')) AS q
    FROM terms, unnest(tsvector_to_array(to_tsvector('simple', t))) AS lexeme
  ),
  likes AS (
    SELECT '%' || regexp_replace(t, '([\\\\%_])', '\\\\\\1', 'g') || '%' AS pattern
      FROM terms WHERE to_tsvector('simple', t) = ''::tsvector
    UNION ALL SELECT pattern FROM unnest($2::text[]) AS pattern
  )
  SELECT s.session_key, m.session_id, m.seq, m.role, m.content, m.created_at
  FROM messages m
  JOIN session_ids s ON s.id = m.session_id
  CROSS JOIN query
  WHERE m.content IS NOT NULL
    AND m.role = ANY($3::text[])
    AND ${pgKeyPrefixCondition('s.session_key', 4)}
    AND ($6::text IS NULL OR m.session_id <> $6)
    AND (query.q IS NULL OR m.search @@ query.q)
    AND NOT EXISTS (SELECT 1 FROM likes WHERE m.content NOT ILIKE likes.pattern)
  ORDER BY (CASE WHEN query.q IS NULL THEN 0 ELSE ts_rank(m.search, query.q) END) DESC, m.id DESC
  LIMIT $7`;

export interface PgMessageRepo {
  append(sessionId: string, messages: readonly NewMessage[]): Promise<StoredMessage[]>;
  list(sessionId: string, options: ListMessagesOptions): Promise<StoredMessage[]>;
  count(sessionId: string): Promise<number>;
  search(query: string, options: SearchMessagesOptions): Promise<SearchHit[]>;
}

/** Transcripts in PostgreSQL: appends to one session are serialised by a lock on its id row. */
export function createPgMessageRepo(pool: PgPool, now: () => number): PgMessageRepo {
  return {
    append: async (sessionId, messages) => {
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
      return inPgTransaction(pool, async (client) => {
        const owner = await client.query('SELECT 1 FROM session_ids WHERE id = $1 FOR UPDATE', [sessionId]);
        if (owner.rowCount === 0) {
          throw new HermesError('store_failed', `unknown session id ${sessionId}: create the session first`);
        }
        const last = await client.query<{ seq: number }>(
          'SELECT coalesce(max(seq), 0)::int AS seq FROM messages WHERE session_id = $1',
          [sessionId],
        );
        let seq = last.rows[0]?.seq ?? 0;
        const at = now();
        const stored: StoredMessage[] = [];
        const values: unknown[] = [];
        const tuples: string[] = [];
        for (const message of checked) {
          seq += 1;
          const toolCalls =
            message.toolCalls === undefined || message.toolCalls.length === 0 ? undefined : message.toolCalls;
          const createdAt = message.createdAt ?? at;
          const base = values.length;
          tuples.push(`(${Array.from({ length: PARAMS_PER_ROW }, (_, i) => `$${base + i + 1}`).join(', ')})`);
          values.push(
            sessionId,
            seq,
            message.role,
            pgText(message.content),
            toolCalls === undefined ? null : pgJson(toolCalls),
            message.toolCallId === undefined ? null : pgText(message.toolCallId),
            message.name === undefined ? null : pgText(message.name),
            message.promptTokens ?? null,
            message.completionTokens ?? null,
            createdAt,
          );
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
        await client.query(`INSERT INTO messages (${COLUMNS}) VALUES ${tuples.join(', ')}`, values);
        await client.query('UPDATE sessions SET updated_at = $1 WHERE session_id = $2 AND updated_at < $1', [
          at,
          sessionId,
        ]);
        return stored;
      });
    },
    list: async (sessionId, options) => {
      assertSessionId(sessionId);
      const after = options.afterSeq === undefined ? 0 : Math.trunc(options.afterSeq);
      const limit = options.limit === undefined ? null : Math.max(0, Math.trunc(options.limit));
      const sql =
        options.tail === true && limit !== null
          ? `SELECT * FROM (SELECT ${COLUMNS} FROM messages WHERE session_id = $1 AND seq > $2
               ORDER BY seq DESC LIMIT $3) AS tail ORDER BY seq`
          : `SELECT ${COLUMNS} FROM messages WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`;
      const result = await pool.query(sql, [sessionId, after, limit]);
      return parseRows(messageRow, result.rows, 'message').map(toMessage);
    },
    count: async (sessionId) => {
      const result = await pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM messages WHERE session_id = $1',
        [assertSessionId(sessionId)],
      );
      return result.rows[0]?.n ?? 0;
    },
    search: async (query, options) => {
      const plan = planSearch(query);
      if (plan === undefined) return [];
      const roles = (options.roles ?? SEARCHABLE_ROLES).filter((r) => SEARCHABLE_ROLES.includes(r));
      if (roles.length === 0) return [];
      const long = plan.terms.filter((t) => [...t].length >= 3).map((t) => pgText(t));
      const { prefix, prefixColon } = prefixParams(options.sessionKeyPrefix);
      const result = await pool.query(SEARCH_SQL, [
        long,
        plan.likes.map((like) => pgText(like)),
        roles,
        prefix,
        prefixColon,
        options.excludeSessionId ?? null,
        clampLimit(options.limit, 20, 200),
      ]);
      return parseRows(searchRow, result.rows, 'search hit').map((row) => ({
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

function toMessage(row: z.infer<typeof messageRow>): StoredMessage {
  return {
    sessionId: row.session_id,
    seq: row.seq,
    role: row.role,
    content: row.content,
    toolCalls: row.tool_calls ?? undefined,
    toolCallId: orUndefined(row.tool_call_id),
    name: orUndefined(row.name),
    promptTokens: orUndefined(row.prompt_tokens),
    completionTokens: orUndefined(row.completion_tokens),
    createdAt: row.created_at,
  };
}
