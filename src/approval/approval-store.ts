import type { ApprovalChoice, ApprovalRequest, ApprovalScope } from './approval-types.js';

/**
 * Where pending approval requests, decisions and per-session approval state live. Two
 * implementations share one conformance suite: in-memory (one process) and Redis (any number of
 * processes). Every rule below is enforced by the store itself, atomically, so callers in
 * different processes cannot break it:
 *
 * - the first decision wins; later callers get the recorded winner back;
 * - expiry is authoritative: a pending request at or past `expiresAt` (by the store's clock) is
 *   expired and a decision for it changes nothing;
 * - a decision carrying a command hash different from the request's is refused;
 * - `session`/`always` are refused for a request with `allowPermanent: false`;
 * - an identical request (same session, same command hash) opened while one is pending joins it.
 */
export interface ApprovalStore {
  /**
   * Records a new pending request, unless an identical one (same session key and command hash)
   * is pending and not expired: then that one is returned with `coalesced: true` and nothing is
   * written.
   */
  open(request: ApprovalRequest): Promise<OpenResult>;
  /** Where a request stands now. */
  outcome(requestId: string): Promise<ApprovalOutcome>;
  /** Records the first decision for a request; see the rules above. */
  decide(requestId: string, decision: DecisionInput): Promise<DecideResult>;
  /**
   * Marks a decided request as used and says whether this call was the first to do so. The
   * gate claims an `once` approval before letting the command run, so a replayed resume cannot
   * run it twice.
   */
  claim(requestId: string): Promise<boolean>;
  /** Pending, unexpired requests of a session, oldest first. */
  listPending(sessionKey: string): Promise<ApprovalRequest[]>;
  /** Finding keys approved with scope `session` (or `always`) in this session. */
  sessionGrants(sessionKey: string): Promise<ReadonlySet<string>>;
  /** Per-session yolo (`/yolo`); floors still apply. */
  setSessionYolo(sessionKey: string, on: boolean): Promise<void>;
  sessionYolo(sessionKey: string): Promise<boolean>;
  /** Drops a session's grants and yolo, and cancels its pending requests. Returns how many were cancelled. */
  clearSession(sessionKey: string, decidedAt: number): Promise<number>;
  /** Releases connections the store owns (none for the in-memory store). */
  close(): Promise<void>;
}

export interface OpenResult {
  /** The request now pending: the one passed in, or the identical one it joined. */
  readonly request: ApprovalRequest;
  readonly coalesced: boolean;
}

export interface DecisionInput {
  readonly choice: ApprovalChoice;
  /** Who decided (platform user id); undefined for system decisions such as cancellation. */
  readonly userId: string | undefined;
  /** Epoch milliseconds; the store also uses it to judge expiry. */
  readonly decidedAt: number;
  /** When given, must equal the request's hash or the decision is refused. */
  readonly commandHash?: string;
  /** `cancelled` for /stop, session teardown or an explicit cancel; `user` otherwise. */
  readonly cause?: DenyCause;
  /** Free text given with a denial (`/deny <reason>`), relayed to the model. */
  readonly reason?: string;
}

export type DenyCause = 'user' | 'cancelled';

/** The recorded decision, as stored. */
export interface DecisionRecord {
  readonly choice: ApprovalChoice;
  readonly userId: string | undefined;
  readonly decidedAt: number;
  readonly cause: DenyCause;
  readonly reason: string | undefined;
}

export type ApprovalOutcome =
  | { readonly state: 'pending'; readonly request: ApprovalRequest }
  | {
      readonly state: 'approved';
      readonly request: ApprovalRequest;
      readonly scope: ApprovalScope;
      readonly decision: DecisionRecord;
      /** True once `claim` has been called for it. */
      readonly claimed: boolean;
    }
  | {
      readonly state: 'denied';
      readonly request: ApprovalRequest;
      readonly cause: DenyCause;
      readonly decision: DecisionRecord;
    }
  /** Nobody answered before `expiresAt`: the command must not run (silence is not consent). */
  | { readonly state: 'expired'; readonly request: ApprovalRequest }
  /** Never existed, or dropped after its retention period. */
  | { readonly state: 'unknown' };

export type DecideResult =
  | { readonly status: 'recorded'; readonly outcome: ApprovalOutcome }
  | { readonly status: 'already_decided'; readonly outcome: ApprovalOutcome }
  | { readonly status: 'expired'; readonly outcome: ApprovalOutcome }
  | { readonly status: 'hash_mismatch' }
  | { readonly status: 'scope_refused' }
  | { readonly status: 'not_found' };

/** Store tunables shared by both implementations. */
export interface ApprovalStoreOptions {
  /** The authoritative clock (epoch ms). Defaults to Date.now. */
  readonly now?: () => number;
  /** Milliseconds a request is kept after its expiry, so late clicks and resumes get an answer. */
  readonly retentionMs?: number;
  /** Milliseconds session grants and session yolo are kept after their last change. */
  readonly sessionTtlMs?: number;
}

export const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Turns a stored decision into the outcome it stands for. */
export function outcomeOf(
  request: ApprovalRequest,
  decision: DecisionRecord | undefined,
  claimed: boolean,
  now: number,
): ApprovalOutcome {
  if (decision === undefined) {
    return now >= request.expiresAt ? { state: 'expired', request } : { state: 'pending', request };
  }
  if (decision.choice === 'deny') return { state: 'denied', request, cause: decision.cause, decision };
  return { state: 'approved', request, scope: decision.choice, decision, claimed };
}

/** True when the choice needs `allowPermanent` (session and always are permanent-ish scopes). */
export function needsPermanent(choice: ApprovalChoice): boolean {
  return choice === 'session' || choice === 'always';
}

export function decisionRecordOf(input: DecisionInput): DecisionRecord {
  return {
    choice: input.choice,
    userId: input.userId,
    decidedAt: input.decidedAt,
    cause: input.cause ?? 'user',
    reason: input.reason,
  };
}
