import { approvalRequestSchema } from '../../approval/approval-schemas.js';
import type { Ingress, PromptAnswerStatus, PromptRef } from '../../platforms/ingress.js';
import type { ReadinessCheck } from '../http/create-http-server.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { TurnQueue } from '../queue/turn-queue.js';
import { parseSessionKey } from '../session-key.js';
import type { OutboxEntry } from '../store/outbox-entry.js';
import type { OutboxStore } from '../store/outbox-store.js';
import type { ParkedTurnStore } from '../store/parked-turn-store.js';
import type { SessionStore } from '../store/session-store.js';
import type { TranscriptStore } from '../store/transcript-store.js';
import type { TurnFailureStore } from '../store/turn-failure-store.js';
import { parkedStateSchema } from '../turn/parked-state.js';

/** What the dashboard reads and does; all of it comes from the gateway (nothing of its own). */
export interface DashboardDeps {
  readonly store: Pick<ParkedTurnStore, 'listParkedTurns'> &
    Pick<SessionStore, 'listSessions'> &
    Pick<OutboxStore, 'listRecentOutbox'> &
    Pick<SessionStore, 'getSession'> &
    Pick<TranscriptStore, 'listMessages'> &
    Pick<TurnFailureStore, 'listTurnFailures'>;
  /** Depth and running sessions come from the queue, so they cover every worker process. */
  readonly queue: Pick<TurnQueue, 'depth' | 'activeTurns' | 'runningSessions'>;
  readonly ingress: Pick<Ingress, 'answerPrompt'>;
  readonly readiness: () => readonly ReadinessCheck[];
  /** This process's counters and recent-turn figures, the same as `/metrics`. */
  readonly metrics: Pick<
    GatewayMetrics,
    'turns' | 'turnSeconds' | 'modelSeconds' | 'deliveriesFailed' | 'recentTurns'
  >;
  readonly now: () => number;
  /**
   * True when a dashboard token is set. Without one, `operator` routes answer any loopback client —
   * the agent's own commands included (a sandbox that shares the network sees loopback) — so an
   * approval from the dashboard needs the token, and so does reading a transcript; denying does not.
   */
  readonly tokenSet: boolean;
}

export interface PendingApproval {
  readonly id: string;
  readonly command: string;
  readonly why: readonly string[];
  readonly expiresAt: number;
  readonly sessionKey: string;
  readonly platform: string;
  readonly chatId: string;
  readonly userId: string | undefined;
  readonly ref: PromptRef;
}

/** The approvals parked turns wait for, oldest first. */
export async function pendingApprovals(deps: DashboardDeps): Promise<PendingApproval[]> {
  const list: PendingApproval[] = [];
  for (const parked of await deps.store.listParkedTurns()) {
    if (parked.reason !== 'approval') continue;
    const state = parkedStateSchema.safeParse(parked.state);
    if (!state.success) continue;
    const request = approvalRequestSchema.safeParse(state.data.request);
    if (!request.success) continue;
    const origin = state.data.origin;
    list.push({
      id: request.data.id,
      command: request.data.command,
      why: request.data.findings.map((finding) => finding.description),
      expiresAt: request.data.expiresAt,
      sessionKey: parked.sessionKey,
      platform: origin.platform,
      chatId: origin.chatId,
      userId: origin.userId,
      ref: {
        platform: origin.platform,
        chatId: origin.chatId,
        sessionKey: parked.sessionKey,
        turnId: parked.turnId,
        parkId: state.data.parkId,
        reason: 'approval',
        payload: state.data.request,
        userId: origin.userId,
      },
    });
  }
  return list.sort((a, b) => a.expiresAt - b.expiresAt);
}

/** Decides a pending approval as the operator, through the chat buttons' path (first answer wins). */
export async function decideAsOperator(
  deps: DashboardDeps,
  requestId: string,
  choice: 'once' | 'deny',
): Promise<PromptAnswerStatus | 'not_found'> {
  const pending = (await pendingApprovals(deps)).find((approval) => approval.id === requestId);
  if (pending === undefined) return 'not_found';
  const result = await deps.ingress.answerPrompt(
    pending.ref,
    { kind: 'approval', choice },
    { userId: 'operator', name: 'operator', admin: true },
  );
  return result.status;
}

export type SessionState = 'idle' | 'running' | 'waiting_for_approval' | 'waiting_for_input';

export interface LiveSession {
  readonly key: string;
  readonly platform: string;
  readonly chat: string;
  readonly user: string | undefined;
  readonly lastActivity: number;
  readonly state: SessionState;
}

/**
 * The most recently active sessions (at most `limit`), with what each is doing — from shared
 * state only, so a turn is seen whichever process runs it: parked turns from the store, running
 * turns from the queue (Redis locks with BullMQ).
 */
export async function liveSessions(deps: DashboardDeps, limit = 50): Promise<LiveSession[]> {
  const parked = await deps.store.listParkedTurns();
  const sessions = await deps.store.listSessions({ limit });
  const running = await deps.queue.runningSessions(sessions.map((session) => session.key));
  return sessions.map((session) => {
    const wait = parked.find((turn) => turn.sessionKey === session.key);
    const state: SessionState = running.has(session.key)
      ? 'running'
      : wait?.reason === 'approval'
        ? 'waiting_for_approval'
        : wait?.reason === 'clarify'
          ? 'waiting_for_input'
          : 'idle';
    const origin = wait === undefined ? undefined : parkedStateSchema.safeParse(wait.state);
    let platform = '?';
    let chat = session.key;
    let user: string | undefined;
    try {
      const parts = parseSessionKey(session.key);
      platform = parts.platform;
      chat = `${parts.chatType}:${parts.rest[0] ?? ''}`;
      user = parts.chatType === 'dm' ? parts.rest[0] : parts.rest.slice(1).join(':') || undefined;
    } catch {
      // A key that is not ours is shown whole.
    }
    if (origin?.success === true && origin.data.origin.userId !== undefined) user = origin.data.origin.userId;
    return {
      key: session.key,
      platform,
      chat,
      user,
      lastActivity: Math.max(session.updatedAt, wait?.createdAt ?? 0),
      state,
    };
  });
}

/** What `/readyz` reports, check by check. */
export async function healthChecks(deps: DashboardDeps) {
  return Promise.all(
    deps.readiness().map(async ({ name, check }) => {
      try {
        const result = await check();
        return { name, ok: result.ok, ...(result.reason !== undefined ? { reason: result.reason } : {}) };
      } catch (error) {
        return { name, ok: false, reason: (error as Error).message };
      }
    }),
  );
}

/** Queue figures: waiting items, turns running in this process, approvals pending. */
export async function queueFigures(deps: DashboardDeps, pending: number) {
  return {
    depth: await deps.queue.depth(),
    activeTurns: deps.queue.activeTurns(),
    pendingApprovals: pending,
  };
}

/** Sum and count of a histogram's observations (its `_sum` and `_count` series). */
async function meanSeconds(
  histogram: GatewayMetrics['turnSeconds'],
): Promise<{ count: number; mean: number | null }> {
  const { values } = await histogram.get();
  const sum = values.find((value) => value.metricName?.endsWith('_sum'))?.value ?? 0;
  const count = values.find((value) => value.metricName?.endsWith('_count'))?.value ?? 0;
  return { count, mean: count === 0 ? null : sum / count };
}

/**
 * Turn figures of this process, from the `/metrics` counters: since it started, turns by outcome,
 * mean turn and model-request time (seconds) and outbound messages given up on; over the last
 * 1 and 5 minutes, turns per minute and p50/p95/p99 turn latency (`hermes_turns_per_minute`,
 * `hermes_turn_duration_recent_seconds`: the histogram's buckets, as histogram_quantile reads them).
 */
export async function turnFigures(deps: DashboardDeps) {
  const byOutcome: Record<string, number> = {};
  for (const value of (await deps.metrics.turns.get()).values) {
    byOutcome[String(value.labels['outcome'] ?? '?')] = value.value;
  }
  const turn = await meanSeconds(deps.metrics.turnSeconds);
  const model = await meanSeconds(deps.metrics.modelSeconds);
  const failedDeliveries = (await deps.metrics.deliveriesFailed.get()).values.reduce(
    (sum, v) => sum + v.value,
    0,
  );
  return {
    byOutcome,
    meanTurnSeconds: turn.mean,
    modelRequests: model.count,
    meanModelSeconds: model.mean,
    failedDeliveries,
    recent: deps.metrics.recentTurns.figures(),
  };
}

const outboxRow = (entry: OutboxEntry) => ({
  platform: entry.platform,
  kind: entry.kind,
  chatId: entry.origin.chatId,
  sessionKey: entry.sessionKey,
  createdAt: entry.createdAt,
  attempts: entry.attempts,
  lastAttemptAt: entry.lastAttemptAt,
});

/**
 * Answers, failure notices and prompts still to deliver to any platform, oldest first (at most
 * 50), from the store: whichever process will deliver them.
 */
export async function pendingOutbox(deps: DashboardDeps) {
  return (await deps.store.listRecentOutbox({ state: 'pending', limit: 50 })).map(outboxRow);
}

/** The most recent failures (at most 20 each): failed turns, and deliveries given up on after their retries. */
export async function recentFailures(deps: DashboardDeps) {
  const [turns, deliveries] = await Promise.all([
    deps.store.listTurnFailures({ limit: 20 }),
    deps.store.listRecentOutbox({ state: 'abandoned', limit: 20 }),
  ]);
  return {
    turns,
    deliveries: deliveries.map((entry) => ({ ...outboxRow(entry), givenUpAt: entry.completed?.at })),
  };
}

/**
 * The last messages (at most 200) of a session's current conversation: user and assistant text,
 * and tool calls with their results (the page folds those). Undefined for an unknown session.
 */
export async function sessionTranscript(deps: DashboardDeps, key: string) {
  const session = await deps.store.getSession(key);
  if (session === undefined) return undefined;
  const messages = await deps.store.listMessages(session.sessionId, { limit: 200, tail: true });
  return messages
    .filter((message) => message.role !== 'system')
    .map((message) => ({
      role: message.role,
      text: message.content ?? '',
      ...(message.toolCalls !== undefined && message.toolCalls.length > 0
        ? {
            toolCalls: message.toolCalls.map((call) => ({
              name: call.function.name,
              arguments: call.function.arguments,
            })),
          }
        : {}),
      ...(message.role === 'tool' && message.name !== undefined ? { tool: message.name } : {}),
      at: message.createdAt,
    }));
}
