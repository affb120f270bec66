import type { ToolResult } from '../../registry/tool-types.js';
import { turnAbortReason } from '../queue/turn-abort.js';
import type { ToolCallRecord } from '../store/transcript-store.js';
import { approvalRequestSchema, type ParkedState } from './parked-state.js';
import { runToolCalls } from './run-tool-calls.js';
import { observe } from './runner-core.js';
import { persist, progress, type TurnScope } from './turn-scope.js';

const PREVIEW_CHARS = 80;

/**
 * Runs tool calls of the turn's open step and persists each result as soon as it exists, so a
 * retried turn never runs a finished call again. `parked`: a call paused and the turn is saved;
 * `aborted`: the turn's signal fired (the caller decides what that means).
 */
export async function runStep(
  scope: TurnScope,
  calls: readonly ToolCallRecord[],
): Promise<'done' | 'parked' | 'aborted'> {
  const { core } = scope;
  const outcome = await runToolCalls(calls, {
    isReadOnly: (name) => core.registry.get(name)?.readOnly === true,
    keepGoing: () => !scope.signal.aborted,
    execute: (call) => dispatchCall(scope, call),
    onResult: async (call, result) => {
      // Stopped by a shutdown or a lost lock: leave the call unanswered so the retry runs it.
      if (result.kind === 'error' && result.code === 'aborted' && leavesWorkForRetry(scope.signal)) return;
      await persist(scope, [
        { role: 'tool', content: result.content, toolCallId: call.id, name: call.function.name },
      ]);
    },
  });
  if (outcome.paused !== undefined) {
    await park(scope, outcome.paused.call, outcome.paused.result, outcome.notRun);
    return 'parked';
  }
  return scope.signal.aborted ? 'aborted' : 'done';
}

export function leavesWorkForRetry(signal: AbortSignal): boolean {
  const reason = turnAbortReason(signal);
  return reason === 'shutdown' || reason === 'lock_lost';
}

/** One registry call with progress events and metrics; a pause where nobody can answer becomes a result. */
export async function dispatchCall(scope: TurnScope, call: ToolCallRecord): Promise<ToolResult> {
  const { core } = scope;
  const name = call.function.name;
  const emoji = core.registry.get(name)?.emoji ?? '🔧';
  progress(scope, { kind: 'tool_started', toolCallId: call.id, tool: name, emoji, preview: previewOf(call) });
  const started = core.now();
  let result = await core.registry.dispatch(name, call.function.arguments, {
    signal: scope.signal,
    sessionKey: scope.sessionKey,
    taskId: scope.turnId,
    userId: scope.origin.userId,
    platform: scope.origin.platform,
    unattended: scope.origin.unattended,
    toolCallId: call.id,
    allowedTools: scope.allowedTools,
    chat: {
      chatType: scope.origin.chatType,
      chatId: scope.origin.chatId,
      threadId: scope.origin.threadId,
      userName: scope.origin.userName,
    },
  });
  if (result.kind === 'paused' && scope.origin.unattended) result = { kind: 'ok', content: result.content };
  const durationMs = core.now() - started;
  progress(scope, {
    kind: 'tool_finished',
    toolCallId: call.id,
    tool: name,
    emoji,
    ok: result.kind === 'ok',
    durationMs,
  });
  observe(core, 'toolCall', {
    tool: name,
    outcome: result.kind === 'error' ? result.code : result.kind,
    durationMs,
  });
  return result;
}

/** Saves the turn as parked and tells the gateway; the worker is free once the handler returns. */
async function park(
  scope: TurnScope,
  call: ToolCallRecord,
  result: ToolResult & { kind: 'paused' },
  notRun: readonly ToolCallRecord[],
): Promise<void> {
  const { core } = scope;
  const request = toJson(result.payload);
  const parkedAt = core.now();
  const state: ParkedState = {
    version: 1,
    turnId: scope.turnId,
    sessionKey: scope.sessionKey,
    sessionId: scope.sessionId,
    origin: scope.origin,
    parkId: core.newId(),
    reason: result.reason,
    toolCall: { id: call.id, type: 'function', function: { ...call.function } },
    request,
    remaining: notRun.map((entry) => ({ id: entry.id, type: 'function', function: { ...entry.function } })),
    parkedAt,
  };
  const approval = result.reason === 'approval' ? approvalRequestSchema.safeParse(request) : undefined;
  const expiresAt = approval?.success ? approval.data.expiresAt : parkedAt + core.clarifyTimeoutMs;
  await core.store.saveParkedTurn({
    turnId: scope.turnId,
    sessionKey: scope.sessionKey,
    state,
    reason: result.reason,
    createdAt: parkedAt,
    expiresAt,
  });
  scope.log.info({ reason: result.reason, tool: call.function.name, parkId: state.parkId }, 'turn parked');
  await scope.latch.parked(parkedEventOf(state));
}

export function parkedEventOf(state: ParkedState) {
  return {
    turnId: state.turnId,
    sessionKey: state.sessionKey,
    origin: state.origin,
    reason: state.reason,
    payload: state.request,
    parkId: state.parkId,
    toolCallId: state.toolCall.id,
    toolName: state.toolCall.function.name,
  };
}

function toJson(value: unknown): ParkedState['request'] {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value)) as ParkedState['request'];
}

/** A short look at the arguments for progress messages: the command, path, query or first text. */
function previewOf(call: ToolCallRecord): string {
  let args: unknown;
  try {
    args = JSON.parse(call.function.arguments);
  } catch {
    return '';
  }
  if (typeof args !== 'object' || args === null) return '';
  const record = args as Record<string, unknown>;
  const preferred = ['command', 'path', 'query', 'goal', 'url', 'question', 'action'];
  const key =
    preferred.find((name) => typeof record[name] === 'string') ??
    Object.keys(record).find((name) => typeof record[name] === 'string');
  const value = key === undefined ? '' : String(record[key]);
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS - 1)}…` : flat;
}
