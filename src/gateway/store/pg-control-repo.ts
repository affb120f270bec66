import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import { assertSessionKey } from '../session-key.js';
import type {
  ActionPromptInput,
  ActionPromptRecord,
  ActionPromptResolutionInput,
  ListActionPromptsOptions,
} from './action-prompt-store.js';
import type { DeliveryFailure, DeliveryFailureInput } from './delivery-failure-store.js';
import type { PgPool } from './pg-database.js';
import { pgText } from './pg-values.js';
import { orUndefined, parseRow, parseRows } from './sqlite-rows.js';
import { checkChoices, checkId, optionalId } from './store-checks.js';

const promptRow = z.object({
  prompt_id: z.string(),
  kind: z.enum(['approval', 'clarify']),
  platform: z.string(),
  chat_id: z.string(),
  thread_id: z.string().nullable(),
  message_id: z.string(),
  session_key: z.string(),
  turn_id: z.string(),
  park_id: z.string(),
  request_id: z.string().nullable(),
  user_id: z.string().nullable(),
  choices: z.array(z.string()),
  created_at: z.number(),
  expires_at: z.number().nullable(),
  resolved_at: z.number().nullable(),
  outcome: z.string().nullable(),
  resolved_by: z.string().nullable(),
  answer: z.string().nullable(),
});
/** Free-text clarify answers kept with the resolution are capped (as on SQLite). */
const MAX_ANSWER_LENGTH = 4000;
const failureRow = z.object({
  id: z.number(),
  platform: z.string(),
  chat_id: z.string(),
  session_key: z.string(),
  turn_id: z.string(),
  error: z.string(),
  at: z.number(),
});
const MAX_ERROR_LENGTH = 1000;

export interface PgControlRepo {
  savePrompt(input: ActionPromptInput): Promise<void>;
  getPrompt(promptId: string): Promise<ActionPromptRecord | undefined>;
  findPromptByRequest(requestId: string): Promise<ActionPromptRecord | undefined>;
  findPromptByMessage(
    platform: string,
    chatId: string,
    messageId: string,
  ): Promise<ActionPromptRecord | undefined>;
  listPrompts(options: ListActionPromptsOptions): Promise<ActionPromptRecord[]>;
  resolvePrompt(promptId: string, resolution: ActionPromptResolutionInput): Promise<boolean>;
  recordFailure(input: DeliveryFailureInput): Promise<DeliveryFailure>;
  takeFailures(platform: string, chatId: string): Promise<DeliveryFailure[]>;
  prune(olderThan: number): Promise<{ actionPrompts: number; deliveryFailures: number }>;
}

/** Action prompts and delivery failures in PostgreSQL (same rules as the SQLite control repo). */
export function createPgControlRepo(pool: PgPool, now: () => number): PgControlRepo {
  const one = async (sql: string, params: unknown[]) => {
    const result = await pool.query(sql, params);
    return result.rows[0] === undefined
      ? undefined
      : toPrompt(parseRow(promptRow, result.rows[0], 'action prompt'));
  };
  return {
    savePrompt: async (input) => {
      if (input.kind !== 'approval' && input.kind !== 'clarify') {
        throw new HermesError('store_failed', `unknown action prompt kind ${String(input.kind)}`);
      }
      // A second save updates where and what, never the resolution: a resolved prompt stays resolved.
      await pool.query(
        `INSERT INTO action_prompts (prompt_id, kind, platform, chat_id, thread_id, message_id, session_key,
           turn_id, park_id, request_id, user_id, choices, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
         ON CONFLICT (prompt_id) DO UPDATE SET kind = excluded.kind, platform = excluded.platform,
           chat_id = excluded.chat_id, thread_id = excluded.thread_id, message_id = excluded.message_id,
           session_key = excluded.session_key, turn_id = excluded.turn_id, park_id = excluded.park_id,
           request_id = excluded.request_id, user_id = excluded.user_id, choices = excluded.choices,
           created_at = excluded.created_at, expires_at = excluded.expires_at`,
        [
          checkId('prompt id', input.promptId),
          input.kind,
          checkId('platform', input.platform),
          checkId('chat id', input.chatId),
          optionalId('thread id', input.threadId) ?? null,
          checkId('message id', input.messageId),
          assertSessionKey(input.sessionKey),
          checkId('turn id', input.turnId),
          checkId('park id', input.parkId),
          optionalId('request id', input.requestId) ?? null,
          optionalId('user id', input.userId) ?? null,
          JSON.stringify(checkChoices(input.choices ?? []).map((choice) => pgText(choice))),
          input.createdAt ?? now(),
          input.expiresAt ?? null,
        ],
      );
    },
    getPrompt: (promptId) =>
      one('SELECT * FROM action_prompts WHERE prompt_id = $1', [checkId('prompt id', promptId)]),
    findPromptByRequest: (requestId) =>
      one('SELECT * FROM action_prompts WHERE request_id = $1 ORDER BY created_at DESC, seq DESC LIMIT 1', [
        checkId('request id', requestId),
      ]),
    findPromptByMessage: (platform, chatId, messageId) =>
      one(
        `SELECT * FROM action_prompts WHERE platform = $1 AND chat_id = $2 AND message_id = $3
         ORDER BY created_at DESC, seq DESC LIMIT 1`,
        [checkId('platform', platform), checkId('chat id', chatId), checkId('message id', messageId)],
      ),
    listPrompts: async (options) => {
      const result = await pool.query(
        `SELECT * FROM action_prompts
         WHERE ($1::text IS NULL OR session_key = $1)
           AND (NOT $2::boolean OR resolved_at IS NULL)
           AND ($3::bigint IS NULL OR (expires_at IS NOT NULL AND expires_at <= $3))
         ORDER BY created_at, seq`,
        [options.sessionKey ?? null, options.pendingOnly === true, options.expiredBy ?? null],
      );
      return parseRows(promptRow, result.rows, 'action prompt').map(toPrompt);
    },
    resolvePrompt: async (promptId, resolution) => {
      if (typeof resolution.outcome !== 'string' || resolution.outcome.length === 0) {
        throw new HermesError('store_failed', 'a prompt resolution needs an outcome');
      }
      // One conditional UPDATE: the row lock makes exactly one caller see a change.
      const result = await pool.query(
        `UPDATE action_prompts SET resolved_at = $2, outcome = $3, resolved_by = $4, answer = $5
         WHERE prompt_id = $1 AND resolved_at IS NULL`,
        [
          checkId('prompt id', promptId),
          resolution.at ?? now(),
          resolution.outcome,
          optionalId('resolver', resolution.resolvedBy) ?? null,
          resolution.answer === undefined
            ? null
            : pgText(String(resolution.answer).slice(0, MAX_ANSWER_LENGTH)),
        ],
      );
      return result.rowCount === 1;
    },
    recordFailure: async (input) => {
      const row = {
        platform: checkId('platform', input.platform),
        chat_id: checkId('chat id', input.chatId),
        session_key: assertSessionKey(input.sessionKey),
        turn_id: checkId('turn id', input.turnId),
        error: String(input.error).slice(0, MAX_ERROR_LENGTH),
        at: input.at ?? now(),
      };
      const result = await pool.query<{ id: number }>(
        `INSERT INTO delivery_failures (platform, chat_id, session_key, turn_id, error, at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
        [row.platform, row.chat_id, row.session_key, row.turn_id, pgText(row.error), row.at],
      );
      return toFailure({ id: Number(result.rows[0]?.id), ...row });
    },
    takeFailures: async (platform, chatId) => {
      const result = await pool.query(
        'DELETE FROM delivery_failures WHERE platform = $1 AND chat_id = $2 RETURNING *',
        [checkId('platform', platform), checkId('chat id', chatId)],
      );
      return parseRows(failureRow, result.rows, 'delivery failure')
        .sort((a, b) => a.id - b.id)
        .map(toFailure);
    },
    prune: async (olderThan) => {
      const prompts = await pool.query(
        'DELETE FROM action_prompts WHERE resolved_at IS NOT NULL AND resolved_at <= $1',
        [olderThan],
      );
      const failures = await pool.query('DELETE FROM delivery_failures WHERE at <= $1', [olderThan]);
      return { actionPrompts: prompts.rowCount ?? 0, deliveryFailures: failures.rowCount ?? 0 };
    },
  };
}

function toPrompt(row: z.infer<typeof promptRow>): ActionPromptRecord {
  return {
    promptId: row.prompt_id,
    kind: row.kind,
    platform: row.platform,
    chatId: row.chat_id,
    threadId: orUndefined(row.thread_id),
    messageId: row.message_id,
    sessionKey: row.session_key,
    turnId: row.turn_id,
    parkId: row.park_id,
    requestId: orUndefined(row.request_id),
    userId: orUndefined(row.user_id),
    choices: row.choices,
    createdAt: row.created_at,
    expiresAt: orUndefined(row.expires_at),
    resolved:
      row.resolved_at === null
        ? undefined
        : {
            outcome: row.outcome ?? '',
            resolvedBy: orUndefined(row.resolved_by),
            at: row.resolved_at,
            answer: orUndefined(row.answer),
          },
  };
}

function toFailure(row: z.infer<typeof failureRow>): DeliveryFailure {
  return {
    id: row.id,
    platform: row.platform,
    chatId: row.chat_id,
    sessionKey: row.session_key,
    turnId: row.turn_id,
    error: row.error,
    at: row.at,
  };
}
