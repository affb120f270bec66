import { callModel, ModelCallError } from './call-model.js';
import { encodeMarker } from './message-marker.js';
import { buildModelRequest } from './model-request.js';
import { leavesWorkForRetry, runStep } from './run-step.js';
import { parseTurnOrigin } from './turn-origin.js';
import { readTurnProgress } from './turn-progress.js';
import { persist, progress, type TurnScope, userMessages } from './turn-scope.js';

const EMPTY_REPLY =
  'I have no answer to give: the model returned an empty reply. Please try rephrasing your message.';
const INTERRUPTED = 'Stopped before finishing: a newer message or /stop interrupted this turn.';
const STOPPED_RESULT = JSON.stringify({ error: 'Not run: the turn was stopped before this call finished.' });

/**
 * The agent loop of one turn, driven by what the transcript already holds: a turn with a final
 * answer re-emits it; an open step runs only its calls without results; otherwise the model is
 * asked. Every step is persisted before the next begins, so after a crash the same loop picks up
 * where the last persisted step left off. Ends with exactly one outcome on the scope's latch, or
 * throws (shutdown, lost lock, store failure) for the queue to retry.
 */
export async function continueTurn(scope: TurnScope): Promise<void> {
  const { core } = scope;
  const release = core.tasks?.enter({
    taskId: scope.turnId,
    sessionKey: scope.sessionKey,
    depth: 0,
    model: scope.model,
    allowedTools: scope.allowedTools,
  });
  try {
    for (;;) {
      const state = readTurnProgress(scope.transcript, scope.turnId);
      if (state.finalText !== undefined) {
        await scope.latch.final({
          turnId: scope.turnId,
          sessionKey: scope.sessionKey,
          origin: scope.origin,
          text: state.finalText,
          ...(state.usage !== undefined ? { usage: state.usage } : {}),
        });
        return;
      }
      if (scope.signal.aborted) {
        await stopOnAbort(scope, state.openStep?.missing ?? []);
        return;
      }
      if (state.openStep !== undefined) {
        const step = await runStep(scope, state.openStep.missing);
        if (step === 'parked') return;
        if (step === 'done') await takeSteering(scope);
        continue;
      }
      if (state.modelCalls >= core.config.agent.max_turns) {
        await persistAssistant(scope, capMessage(state.modelCalls), undefined);
        continue;
      }
      const asked = await askModel(scope);
      if (asked === 'failed') return;
    }
  } finally {
    release?.();
  }
}

/** One model call; persists its reply. `failed` means the outcome is already on the latch. */
async function askModel(scope: TurnScope): Promise<'ok' | 'failed' | 'aborted'> {
  const { core } = scope;
  try {
    const reply = await callModel({
      client: scope.client,
      request: buildModelRequest(scope),
      signal: scope.signal,
      retry: core.retry,
      observer: core.observer,
      now: core.now,
      onText: (text) => progress(scope, { kind: 'text_delta', text }),
      onRetry: (info) => {
        scope.log.warn(info, 'model call failed; retrying');
        progress(scope, { kind: 'model_retry', ...info });
      },
    });
    const content = reply.toolCalls.length === 0 && reply.content.trim() === '' ? EMPTY_REPLY : reply.content;
    await persistAssistant(scope, content, reply);
    return 'ok';
  } catch (error) {
    if (scope.signal.aborted) return 'aborted';
    if (!(error instanceof ModelCallError)) throw error;
    scope.log.warn({ err: error.cause, failure: error.failure }, 'model call failed');
    await scope.latch.failed({
      turnId: scope.turnId,
      sessionKey: scope.sessionKey,
      origin: scope.origin,
      code: error.failure,
      message: error.message,
    });
    return 'failed';
  }
}

async function persistAssistant(
  scope: TurnScope,
  content: string,
  reply: Awaited<ReturnType<typeof callModel>> | undefined,
): Promise<void> {
  const calls = reply?.toolCalls ?? [];
  await persist(scope, [
    {
      role: 'assistant',
      content: calls.length > 0 && content === '' ? null : content,
      ...(calls.length > 0 ? { toolCalls: calls } : {}),
      name: encodeMarker({ turnId: scope.turnId }),
      promptTokens: reply?.promptTokens,
      completionTokens: reply?.completionTokens,
    },
  ]);
}

function capMessage(calls: number): string {
  return `I stopped after ${calls} model calls, the limit for one turn (agent.max_turns), before finishing. Tell me if I should continue from here.`;
}

/**
 * After an abort: an interrupt (a newer message, /stop) ends the turn — unanswered calls get a
 * "stopped" result so the conversation stays valid — and says so. A shutdown or a lost lock
 * rethrows, leaving the turn to be retried from its last persisted step.
 */
async function stopOnAbort(scope: TurnScope, missing: readonly { id: string; function: { name: string } }[]) {
  if (leavesWorkForRetry(scope.signal)) throw scope.signal.reason;
  await persist(
    scope,
    missing.map((call) => ({
      role: 'tool' as const,
      content: STOPPED_RESULT,
      toolCallId: call.id,
      name: call.function.name,
    })),
  );
  scope.log.info('turn interrupted');
  await scope.latch.failed({
    turnId: scope.turnId,
    sessionKey: scope.sessionKey,
    origin: scope.origin,
    code: 'interrupted',
    message: INTERRUPTED,
  });
}

/** Messages that arrived while the turn ran (steer mode) join it as user messages. */
async function takeSteering(scope: TurnScope): Promise<void> {
  const items = (await scope.takeSteering()).filter((item) => item.kind === 'message');
  if (items.length === 0) return;
  const known = readTurnProgress(scope.transcript, scope.turnId).eventIds;
  const entries = items
    .filter((item) => !known.has(item.eventId))
    .map((item) => {
      const parsed = parseTurnOrigin(item.payload);
      const origin = parsed.ok ? parsed.origin : scope.origin;
      if (origin.images !== undefined) scope.images.set(item.eventId, origin.images);
      return { item, origin };
    });
  await persist(scope, userMessages(scope.turnId, entries));
  scope.log.debug({ steered: entries.length }, 'steering messages joined the turn');
}
