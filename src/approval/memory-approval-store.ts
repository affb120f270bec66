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
} from './approval-store.js';
import type { ApprovalRequest } from './approval-types.js';

interface StoredRequest {
  readonly request: ApprovalRequest;
  decision: DecisionRecord | undefined;
  claimed: boolean;
}

interface Expiring<T> {
  readonly value: T;
  readonly until: number;
}

/**
 * The embedded store for a single process. Every method runs to completion without awaiting in
 * between, so each check-then-write is atomic on Node's single thread. Requests are dropped
 * `retentionMs` after their expiry; session state `sessionTtlMs` after its last change.
 */
export function createMemoryApprovalStore(options: ApprovalStoreOptions = {}): ApprovalStore {
  const now = options.now ?? Date.now;
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  const sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  // Insertion order is creation order, which lets pruning stop at the first live record.
  const requests = new Map<string, StoredRequest>();
  const pendingByIdentity = new Map<string, string>();
  const grants = new Map<string, Expiring<Set<string>>>();
  const yolo = new Map<string, Expiring<true>>();

  const identityOf = (request: ApprovalRequest): string => `${request.sessionKey}\0${request.commandHash}`;

  function prune(at: number): void {
    for (const [id, stored] of requests) {
      if (stored.request.expiresAt + retentionMs > at) break;
      requests.delete(id);
      const identity = identityOf(stored.request);
      if (pendingByIdentity.get(identity) === id) pendingByIdentity.delete(identity);
    }
  }

  function live<T>(map: Map<string, Expiring<T>>, key: string, at: number): T | undefined {
    const entry = map.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= at) {
      map.delete(key);
      return undefined;
    }
    return entry.value;
  }

  function decideNow(requestId: string, input: DecisionInput): DecideResult {
    const at = now();
    const stored = requests.get(requestId);
    if (stored === undefined) return { status: 'not_found' };
    const { request } = stored;
    if (input.commandHash !== undefined && input.commandHash !== request.commandHash) {
      return { status: 'hash_mismatch' };
    }
    if (stored.decision !== undefined) {
      return { status: 'already_decided', outcome: outcomeOf(request, stored.decision, stored.claimed, at) };
    }
    if (at >= request.expiresAt) return { status: 'expired', outcome: { state: 'expired', request } };
    if (needsPermanent(input.choice) && !request.allowPermanent) return { status: 'scope_refused' };

    stored.decision = decisionRecordOf(input);
    const identity = identityOf(request);
    if (pendingByIdentity.get(identity) === requestId) pendingByIdentity.delete(identity);
    if (needsPermanent(input.choice)) {
      const keys = live(grants, request.sessionKey, at) ?? new Set<string>();
      for (const finding of request.findings) keys.add(finding.key);
      grants.set(request.sessionKey, { value: keys, until: at + sessionTtlMs });
    }
    return { status: 'recorded', outcome: outcomeOf(request, stored.decision, stored.claimed, at) };
  }

  function pendingOf(sessionKey: string, at: number): ApprovalRequest[] {
    const out: ApprovalRequest[] = [];
    for (const stored of requests.values()) {
      const { request } = stored;
      if (request.sessionKey !== sessionKey || stored.decision !== undefined) continue;
      if (at < request.expiresAt) out.push(request);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt);
  }

  return {
    async open(request: ApprovalRequest): Promise<OpenResult> {
      const at = now();
      prune(at);
      const identity = identityOf(request);
      const existingId = pendingByIdentity.get(identity);
      const existing = existingId === undefined ? undefined : requests.get(existingId);
      if (existing !== undefined && existing.decision === undefined && at < existing.request.expiresAt) {
        return { request: existing.request, coalesced: true };
      }
      requests.set(request.id, { request, decision: undefined, claimed: false });
      pendingByIdentity.set(identity, request.id);
      return { request, coalesced: false };
    },

    async outcome(requestId: string): Promise<ApprovalOutcome> {
      const stored = requests.get(requestId);
      if (stored === undefined) return { state: 'unknown' };
      return outcomeOf(stored.request, stored.decision, stored.claimed, now());
    },

    async decide(requestId: string, input: DecisionInput): Promise<DecideResult> {
      return decideNow(requestId, input);
    },

    async claim(requestId: string): Promise<boolean> {
      const stored = requests.get(requestId);
      if (stored === undefined || stored.decision === undefined || stored.claimed) return false;
      stored.claimed = true;
      return true;
    },

    async listPending(sessionKey: string): Promise<ApprovalRequest[]> {
      return pendingOf(sessionKey, now());
    },

    async sessionGrants(sessionKey: string): Promise<ReadonlySet<string>> {
      return new Set(live(grants, sessionKey, now()) ?? []);
    },

    async setSessionYolo(sessionKey: string, on: boolean): Promise<void> {
      if (on) yolo.set(sessionKey, { value: true, until: now() + sessionTtlMs });
      else yolo.delete(sessionKey);
    },

    async sessionYolo(sessionKey: string): Promise<boolean> {
      return live(yolo, sessionKey, now()) === true;
    },

    async clearSession(sessionKey: string, decidedAt: number): Promise<number> {
      grants.delete(sessionKey);
      yolo.delete(sessionKey);
      let cancelled = 0;
      for (const request of pendingOf(sessionKey, now())) {
        const result = decideNow(request.id, {
          choice: 'deny',
          userId: undefined,
          decidedAt,
          cause: 'cancelled',
        });
        if (result.status === 'recorded') cancelled += 1;
      }
      return cancelled;
    },

    async close(): Promise<void> {},
  };
}
