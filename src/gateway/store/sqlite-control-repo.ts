import type { Database } from 'better-sqlite3';
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
import { orNull, orUndefined, parseJsonColumn, parseRow, parseRows } from './sqlite-rows.js';

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
  choices: z.string(),
  created_at: z.number(),
  expires_at: z.number().nullable(),
  resolved_at: z.number().nullable(),
  outcome: z.string().nullable(),
  resolved_by: z.string().nullable(),
  answer: z.string().nullable(),
});

const choiceList = z.array(z.string());

const failureRow = z.object({
  id: z.number(),
  platform: z.string(),
  chat_id: z.string(),
  session_key: z.string(),
  turn_id: z.string(),
  error: z.string(),
  at: z.number(),
});

const MAX_ID_LENGTH = 512;
/** Failure descriptions are for operators; keep rows small. */
const MAX_ERROR_LENGTH = 1000;
const MAX_CHOICES = 16;
const MAX_CHOICE_LENGTH = 2000;
/** A clarify answer kept with its resolution (free text replies are capped). */
const MAX_ANSWER_LENGTH = 4000;

export interface ControlRepo {
  savePrompt(input: ActionPromptInput): void;
  getPrompt(promptId: string): ActionPromptRecord | undefined;
  findPromptByRequest(requestId: string): ActionPromptRecord | undefined;
  findPromptByMessage(platform: string, chatId: string, messageId: string): ActionPromptRecord | undefined;
  listPrompts(options: ListActionPromptsOptions): ActionPromptRecord[];
  resolvePrompt(promptId: string, resolution: ActionPromptResolutionInput): boolean;
  recordFailure(input: DeliveryFailureInput): DeliveryFailure;
  takeFailures(platform: string, chatId: string): DeliveryFailure[];
  prune(olderThan: number): { actionPrompts: number; deliveryFailures: number };
}

/**
 * State of the chat control plane: the approval / clarify prompts shown in chats (so a click or
 * a reply finds its parked turn, also after a restart) and answers that could not be delivered
 * (announced on the chat's next contact).
 */
export function createControlRepo(db: Database, now: () => number): ControlRepo {
  // A second save updates where and what, never the resolution: a resolved prompt stays resolved.
  const upsertPrompt = db.prepare(
    `INSERT INTO action_prompts (prompt_id, kind, platform, chat_id, thread_id, message_id, session_key,
       turn_id, park_id, request_id, user_id, choices, created_at, expires_at)
     VALUES (@prompt_id, @kind, @platform, @chat_id, @thread_id, @message_id, @session_key,
       @turn_id, @park_id, @request_id, @user_id, @choices, @created_at, @expires_at)
     ON CONFLICT (prompt_id) DO UPDATE SET kind = excluded.kind, platform = excluded.platform,
       chat_id = excluded.chat_id, thread_id = excluded.thread_id, message_id = excluded.message_id,
       session_key = excluded.session_key, turn_id = excluded.turn_id, park_id = excluded.park_id,
       request_id = excluded.request_id, user_id = excluded.user_id, choices = excluded.choices,
       created_at = excluded.created_at,
       expires_at = excluded.expires_at`,
  );
  const selectPrompt = db.prepare('SELECT * FROM action_prompts WHERE prompt_id = ?');
  const selectByRequest = db.prepare(
    'SELECT * FROM action_prompts WHERE request_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1',
  );
  const selectByMessage = db.prepare(
    `SELECT * FROM action_prompts WHERE platform = ? AND chat_id = ? AND message_id = ?
     ORDER BY created_at DESC, rowid DESC LIMIT 1`,
  );
  const listStmt = db.prepare(
    `SELECT * FROM action_prompts
     WHERE (@session_key IS NULL OR session_key = @session_key)
       AND (@pending_only = 0 OR resolved_at IS NULL)
       AND (@expired_by IS NULL OR (expires_at IS NOT NULL AND expires_at <= @expired_by))
     ORDER BY created_at, rowid`,
  );
  const resolveStmt = db.prepare(
    `UPDATE action_prompts SET resolved_at = @at, outcome = @outcome, resolved_by = @resolved_by,
       answer = @answer
     WHERE prompt_id = @prompt_id AND resolved_at IS NULL`,
  );
  const prunePrompts = db.prepare(
    'DELETE FROM action_prompts WHERE resolved_at IS NOT NULL AND resolved_at <= ?',
  );
  const insertFailure = db.prepare(
    `INSERT INTO delivery_failures (platform, chat_id, session_key, turn_id, error, at)
     VALUES (@platform, @chat_id, @session_key, @turn_id, @error, @at)`,
  );
  const selectFailures = db.prepare(
    'SELECT * FROM delivery_failures WHERE platform = ? AND chat_id = ? ORDER BY id',
  );
  const deleteFailures = db.prepare('DELETE FROM delivery_failures WHERE platform = ? AND chat_id = ?');
  const pruneFailures = db.prepare('DELETE FROM delivery_failures WHERE at <= ?');

  const readPrompt = (row: unknown): ActionPromptRecord | undefined =>
    row === undefined ? undefined : toPrompt(parseRow(promptRow, row, 'action prompt'));

  const takeTx = db.transaction((platform: string, chatId: string): DeliveryFailure[] => {
    const rows = parseRows(failureRow, selectFailures.all(platform, chatId), 'delivery failure');
    if (rows.length > 0) deleteFailures.run(platform, chatId);
    return rows.map(toFailure);
  });

  return {
    savePrompt: (input) => {
      if (input.kind !== 'approval' && input.kind !== 'clarify') {
        throw new HermesError('store_failed', `unknown action prompt kind ${String(input.kind)}`);
      }
      upsertPrompt.run({
        prompt_id: checkId('prompt id', input.promptId),
        kind: input.kind,
        platform: checkId('platform', input.platform),
        chat_id: checkId('chat id', input.chatId),
        thread_id: orNull(optionalId('thread id', input.threadId)),
        message_id: checkId('message id', input.messageId),
        session_key: assertSessionKey(input.sessionKey),
        turn_id: checkId('turn id', input.turnId),
        park_id: checkId('park id', input.parkId),
        request_id: orNull(optionalId('request id', input.requestId)),
        user_id: orNull(optionalId('user id', input.userId)),
        choices: JSON.stringify(checkChoices(input.choices ?? [])),
        created_at: input.createdAt ?? now(),
        expires_at: orNull(input.expiresAt),
      });
    },
    getPrompt: (promptId) => readPrompt(selectPrompt.get(checkId('prompt id', promptId))),
    findPromptByRequest: (requestId) => readPrompt(selectByRequest.get(checkId('request id', requestId))),
    findPromptByMessage: (platform, chatId, messageId) =>
      readPrompt(
        selectByMessage.get(
          checkId('platform', platform),
          checkId('chat id', chatId),
          checkId('message id', messageId),
        ),
      ),
    listPrompts: (options) =>
      parseRows(
        promptRow,
        listStmt.all({
          session_key: options.sessionKey ?? null,
          pending_only: options.pendingOnly === true ? 1 : 0,
          expired_by: options.expiredBy ?? null,
        }),
        'action prompt',
      ).map(toPrompt),
    resolvePrompt: (promptId, resolution) => {
      if (typeof resolution.outcome !== 'string' || resolution.outcome.length === 0) {
        throw new HermesError('store_failed', 'a prompt resolution needs an outcome');
      }
      // One conditional UPDATE: SQLite serialises writers, so exactly one caller sees a change.
      const result = resolveStmt.run({
        prompt_id: checkId('prompt id', promptId),
        at: resolution.at ?? now(),
        outcome: resolution.outcome,
        resolved_by: orNull(optionalId('resolver', resolution.resolvedBy)),
        answer:
          resolution.answer === undefined ? null : String(resolution.answer).slice(0, MAX_ANSWER_LENGTH),
      });
      return result.changes === 1;
    },
    recordFailure: (input) => {
      const row = {
        platform: checkId('platform', input.platform),
        chat_id: checkId('chat id', input.chatId),
        session_key: assertSessionKey(input.sessionKey),
        turn_id: checkId('turn id', input.turnId),
        error: String(input.error).slice(0, MAX_ERROR_LENGTH),
        at: input.at ?? now(),
      };
      const id = Number(insertFailure.run(row).lastInsertRowid);
      return toFailure({ id, ...row });
    },
    takeFailures: (platform, chatId) =>
      takeTx.immediate(checkId('platform', platform), checkId('chat id', chatId)),
    prune: (olderThan) => ({
      actionPrompts: prunePrompts.run(olderThan).changes,
      deliveryFailures: pruneFailures.run(olderThan).changes,
    }),
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
    choices: parseJsonColumn(choiceList, row.choices, 'action prompt choices'),
    createdAt: row.created_at,
    expiresAt: orUndefined(row.expires_at),
    resolved:
      row.resolved_at === null
        ? undefined
        : {
            outcome: row.outcome ?? '',
            resolvedBy: orUndefined(row.resolved_by),
            answer: orUndefined(row.answer),
            at: row.resolved_at,
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

function checkId(what: string, value: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH) {
    throw new HermesError(
      'store_failed',
      `${what} must be a non-empty string of at most ${MAX_ID_LENGTH} characters`,
    );
  }
  return value;
}

function checkChoices(choices: readonly string[]): string[] {
  if (
    !Array.isArray(choices) ||
    choices.length > MAX_CHOICES ||
    choices.some((choice) => typeof choice !== 'string' || choice.length > MAX_CHOICE_LENGTH)
  ) {
    throw new HermesError(
      'store_failed',
      `prompt choices must be at most ${MAX_CHOICES} strings of at most ${MAX_CHOICE_LENGTH} characters`,
    );
  }
  return [...choices];
}

function optionalId(what: string, value: string | undefined): string | undefined {
  return value === undefined ? undefined : checkId(what, value);
}
