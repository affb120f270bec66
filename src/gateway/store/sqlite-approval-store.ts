import type { Database } from 'better-sqlite3';
import type { Logger } from 'pino';
import { z } from 'zod';
import { approvalDecisionSchema, approvalRequestSchema } from '../../approval/approval-schemas.js';
import {
  type ApprovalOutcome,
  type ApprovalStore,
  type ApprovalStoreOptions,
  DEFAULT_RETENTION_MS,
  DEFAULT_SESSION_TTL_MS,
  type DecideResult,
  type DecisionInput,
  type DecisionRecord,
  decisionRecordOf,
  needsPermanent,
  type OpenResult,
  outcomeOf,
} from '../../approval/approval-store.js';
import type { ApprovalRequest } from '../../approval/approval-types.js';
import { HermesError } from '../../errors/hermes-error.js';
import { errorText, openSqliteDatabase } from './sqlite-database.js';
import { runMigrations } from './sqlite-migrations.js';
import { parseJsonColumn, parseRow, parseRows } from './sqlite-rows.js';

export interface SqliteApprovalStoreOptions extends ApprovalStoreOptions {
  readonly logger: Logger;
  /** Used when the store opens the file itself. */
  readonly busyTimeoutMs?: number;
}

const requestSchema = approvalRequestSchema;
const decisionSchema = approvalDecisionSchema;
const requestRow = z.object({
  request: z.string(),
  command_hash: z.string(),
  allow_permanent: z.number(),
  expires_at: z.number(),
  decision: z.string().nullable(),
  claimed: z.number(),
});
type RequestRow = z.infer<typeof requestRow>;

/**
 * The approval store for embedded mode (no Redis), in the gateway's SQLite file. Pass the open
 * database of the gateway store (`store.db`; it stays owned by that store) or a path (the
 * store opens and owns its own connection). Checks and writes of one call share an IMMEDIATE
 * transaction, so the first decision wins even across processes on the same file.
 */
export function createSqliteApprovalStore(
  source: Database | string,
  options: SqliteApprovalStoreOptions,
): ApprovalStore {
  const owned = typeof source === 'string';
  const db =
    typeof source === 'string'
      ? openSqliteDatabase({
          path: source,
          logger: options.logger,
          ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
        })
      : source;
  if (!owned) runMigrations(db, options.logger);
  const now = options.now ?? Date.now;
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  const sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  let closed = false;

  const s = {
    insert: db.prepare(
      `INSERT OR REPLACE INTO approval_requests
         (id, session_key, command_hash, request, allow_permanent, created_at, expires_at, decision, claimed)
       VALUES (@id, @session_key, @command_hash, @request, @allow_permanent, @created_at, @expires_at, NULL, 0)`,
    ),
    select: db.prepare(
      'SELECT request, command_hash, allow_permanent, expires_at, decision, claimed FROM approval_requests WHERE id = ?',
    ),
    pendingTwin: db.prepare(
      `SELECT request FROM approval_requests
       WHERE session_key = ? AND command_hash = ? AND decision IS NULL AND expires_at > ?
       ORDER BY created_at, rowid LIMIT 1`,
    ),
    pendingOf: db.prepare(
      `SELECT request FROM approval_requests
       WHERE session_key = ? AND decision IS NULL AND expires_at > ? ORDER BY created_at, rowid`,
    ),
    setDecision: db.prepare('UPDATE approval_requests SET decision = ? WHERE id = ? AND decision IS NULL'),
    claim: db.prepare(
      'UPDATE approval_requests SET claimed = 1 WHERE id = ? AND decision IS NOT NULL AND claimed = 0',
    ),
    pruneRequests: db.prepare('DELETE FROM approval_requests WHERE expires_at <= ?'),
    grant: db.prepare(
      `INSERT INTO approval_grants (session_key, finding_key, until) VALUES (?, ?, ?)
       ON CONFLICT (session_key, finding_key) DO UPDATE SET until = excluded.until`,
    ),
    refreshGrants: db.prepare('UPDATE approval_grants SET until = ? WHERE session_key = ?'),
    grants: db.prepare('SELECT finding_key FROM approval_grants WHERE session_key = ? AND until > ?').pluck(),
    dropGrants: db.prepare('DELETE FROM approval_grants WHERE session_key = ?'),
    pruneGrants: db.prepare('DELETE FROM approval_grants WHERE until <= ?'),
    setYolo: db.prepare(
      `INSERT INTO approval_yolo (session_key, until) VALUES (?, ?)
       ON CONFLICT (session_key) DO UPDATE SET until = excluded.until`,
    ),
    yolo: db.prepare('SELECT 1 FROM approval_yolo WHERE session_key = ? AND until > ?').pluck(),
    dropYolo: db.prepare('DELETE FROM approval_yolo WHERE session_key = ?'),
    pruneYolo: db.prepare('DELETE FROM approval_yolo WHERE until <= ?'),
  };

  const requestOf = (text: string): ApprovalRequest => {
    const parsed = parseJsonColumn(requestSchema, text, 'approval request');
    return { ...parsed, userId: parsed.userId };
  };
  const decisionOf = (row: RequestRow): DecisionRecord | undefined => {
    if (row.decision === null) return undefined;
    const parsed = parseJsonColumn(decisionSchema, row.decision, 'approval decision');
    return { ...parsed, userId: parsed.userId, reason: parsed.reason };
  };
  const readRow = (id: string): RequestRow | undefined => {
    const row = s.select.get(id);
    return row === undefined ? undefined : parseRow(requestRow, row, 'approval request');
  };
  const pendingOf = (sessionKey: string, at: number): ApprovalRequest[] =>
    parseRows(z.object({ request: z.string() }), s.pendingOf.all(sessionKey, at), 'approval request').map(
      (row) => requestOf(row.request),
    );

  /** The body of `decide`; callers run it inside a transaction. */
  function decideIn(requestId: string, input: DecisionInput): DecideResult {
    const at = now();
    const row = readRow(requestId);
    if (row === undefined) return { status: 'not_found' };
    const request = requestOf(row.request);
    if (input.commandHash !== undefined && input.commandHash !== row.command_hash) {
      return { status: 'hash_mismatch' };
    }
    const previous = decisionOf(row);
    if (previous !== undefined) {
      return { status: 'already_decided', outcome: outcomeOf(request, previous, row.claimed !== 0, at) };
    }
    if (at >= row.expires_at) return { status: 'expired', outcome: { state: 'expired', request } };
    if (needsPermanent(input.choice) && row.allow_permanent === 0) return { status: 'scope_refused' };
    const record = decisionRecordOf(input);
    s.setDecision.run(JSON.stringify(record), requestId);
    if (needsPermanent(input.choice)) {
      const until = at + sessionTtlMs;
      for (const finding of request.findings) s.grant.run(request.sessionKey, finding.key, until);
      s.refreshGrants.run(until, request.sessionKey);
    }
    return { status: 'recorded', outcome: outcomeOf(request, record, row.claimed !== 0, at) };
  }

  const openTx = db.transaction((request: ApprovalRequest): OpenResult => {
    const at = now();
    s.pruneRequests.run(at - retentionMs);
    s.pruneGrants.run(at);
    s.pruneYolo.run(at);
    const twin = s.pendingTwin.get(request.sessionKey, request.commandHash, at);
    if (twin !== undefined) {
      const { request: text } = parseRow(z.object({ request: z.string() }), twin, 'approval request');
      return { request: requestOf(text), coalesced: true };
    }
    s.insert.run({
      id: request.id,
      session_key: request.sessionKey,
      command_hash: request.commandHash,
      request: JSON.stringify(request),
      allow_permanent: request.allowPermanent ? 1 : 0,
      created_at: request.createdAt,
      expires_at: request.expiresAt,
    });
    return { request, coalesced: false };
  });
  const decideTx = db.transaction(decideIn);
  const clearTx = db.transaction((sessionKey: string, decidedAt: number): number => {
    s.dropGrants.run(sessionKey);
    s.dropYolo.run(sessionKey);
    let cancelled = 0;
    for (const request of pendingOf(sessionKey, now())) {
      const result = decideIn(request.id, {
        choice: 'deny',
        userId: undefined,
        decidedAt,
        cause: 'cancelled',
      });
      if (result.status === 'recorded') cancelled += 1;
    }
    return cancelled;
  });

  async function run<T>(what: string, work: () => T): Promise<T> {
    if (closed || !db.open)
      throw new HermesError('approval_store_failed', `approval store is closed (${what})`);
    try {
      return work();
    } catch (error) {
      if (error instanceof HermesError && error.code === 'approval_store_failed') throw error;
      throw new HermesError(
        'approval_store_failed',
        `approval store (SQLite) ${what} failed: ${errorText(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  return {
    open: (request) => run('open', () => openTx.immediate(request)),
    outcome: (requestId) =>
      run('outcome', (): ApprovalOutcome => {
        const row = readRow(requestId);
        if (row === undefined) return { state: 'unknown' };
        return outcomeOf(requestOf(row.request), decisionOf(row), row.claimed !== 0, now());
      }),
    decide: (requestId, input) => run('decide', () => decideTx.immediate(requestId, input)),
    claim: (requestId) => run('claim', () => s.claim.run(requestId).changes === 1),
    listPending: (sessionKey) => run('listPending', () => pendingOf(sessionKey, now())),
    sessionGrants: (sessionKey) =>
      run('sessionGrants', (): ReadonlySet<string> => {
        const keys = s.grants.all(sessionKey, now());
        return new Set(keys.filter((key): key is string => typeof key === 'string'));
      }),
    setSessionYolo: (sessionKey, on) =>
      run('setSessionYolo', () => {
        if (on) s.setYolo.run(sessionKey, now() + sessionTtlMs);
        else s.dropYolo.run(sessionKey);
      }),
    sessionYolo: (sessionKey) => run('sessionYolo', () => s.yolo.get(sessionKey, now()) !== undefined),
    clearSession: (sessionKey, decidedAt) =>
      run('clearSession', () => clearTx.immediate(sessionKey, decidedAt)),
    close: async () => {
      if (closed) return;
      closed = true;
      if (owned) db.close();
    },
  };
}
