import { z } from 'zod';
import type { TurnEnd, TurnProgressEvent, TurnWatch, TurnWatcher } from '../ingress.js';
import type { PendingPrompt, Run, RunRegistry } from './run-registry.js';

/** The parts of a parked approval request a run shows (the gate's request, read at the edge). */
const approvalPayload = z
  .object({
    id: z.string(),
    command: z.string(),
    findings: z.array(z.object({ description: z.string() }).passthrough()),
    expiresAt: z.number(),
    allowPermanent: z.boolean(),
  })
  .passthrough();

const clarifyPayload = z
  .object({ question: z.string(), choices: z.array(z.string()).default([]) })
  .passthrough();

export interface FollowRunDeps {
  readonly runs: RunRegistry;
  readonly turns: TurnWatcher;
  readonly now: () => number;
  /** How long one stretch of a turn may take before the run is given up on, ms. */
  readonly timeoutMs: number;
}

/** Starts watching the run's turn; call it BEFORE submitting the input (nothing is missed). */
export async function watchRun(deps: FollowRunDeps, run: Run): Promise<TurnWatch> {
  return deps.turns.watch({
    eventId: run.eventId,
    timeoutMs: deps.timeoutMs,
    onProgress: (event) => onProgress(deps, run, event),
  });
}

/**
 * Follows a run's turn to its end: progress becomes run events, a parked turn makes the run wait
 * (its prompt shown), and the turn's continuation after the answer (a `resume` item, whose event
 * id is derived from the park) is watched in turn, until the turn ends or a stretch times out.
 */
export async function followRun(deps: FollowRunDeps, run: Run, first: TurnWatch): Promise<void> {
  let end = await first.done;
  for (;;) {
    if (end.type !== 'parked') {
      finish(deps, run, end);
      return;
    }
    const parkId = end.parkId ?? '';
    park(deps, run, end);
    end = await watchResume(deps, run, end.turnId, parkId);
  }
}

function onProgress(deps: FollowRunDeps, run: Run, event: TurnProgressEvent): void {
  settlePending(deps, run);
  if (run.status === 'queued') run.status = 'running';
  const { kind, ...rest } = event.progress;
  if (kind === 'text_delta' && typeof rest['text'] === 'string') {
    deps.runs.emit(run, 'text_delta', { text: rest['text'] });
  } else if (kind === 'tool_started' || kind === 'tool_finished' || kind === 'model_retry') {
    deps.runs.emit(run, kind, rest);
  }
}

/** The run waits for a human: its prompt is shown (`pending`) and announced. */
function park(deps: FollowRunDeps, run: Run, end: Extract<TurnEnd, { type: 'parked' }>): void {
  const ref = {
    platform: 'api_server',
    chatId: run.chatId,
    sessionKey: end.sessionKey,
    turnId: end.turnId,
    parkId: end.parkId ?? '',
    reason: end.reason,
    payload: end.payload ?? null,
    userId: 'api',
  };
  if (end.reason === 'approval') {
    const request = approvalPayload.safeParse(end.payload);
    if (request.success) {
      const shown: PendingPrompt = {
        type: 'approval',
        id: request.data.id,
        command: request.data.command,
        why: request.data.findings.map((finding) => finding.description).join('; '),
        choices: request.data.allowPermanent ? ['once', 'session', 'always', 'deny'] : ['once', 'deny'],
        expires_at: new Date(request.data.expiresAt).toISOString(),
      };
      run.pending = { shown, ref, expiresAt: request.data.expiresAt };
      run.status = 'waiting_for_approval';
      deps.runs.emit(run, 'approval_requested', { ...shown });
      return;
    }
  }
  if (end.reason === 'clarify') {
    const question = clarifyPayload.safeParse(end.payload);
    if (question.success) {
      const shown: PendingPrompt = {
        type: 'clarify',
        id: ref.parkId,
        question: question.data.question,
        choices: question.data.choices.slice(0, 4),
      };
      run.pending = { shown, ref };
      run.status = 'waiting_for_input';
      deps.runs.emit(run, 'clarify_asked', { ...shown });
      return;
    }
  }
  // A wait this API cannot show: the run reports it instead of hanging.
  run.pending = undefined;
  run.status = 'waiting_for_input';
}

/**
 * Marks the run's prompt answered (once): with the answer given over HTTP when there is one,
 * else as decided elsewhere (the dashboard, `/approve` in a chat, the expiry).
 */
export function settlePending(deps: Pick<FollowRunDeps, 'runs' | 'now'>, run: Run, outcome?: string): void {
  const pending = run.pending;
  if (pending === undefined) return;
  run.pending = undefined;
  run.status = 'running';
  const answered = run.answering?.parkId === pending.ref.parkId ? run.answering.outcome : undefined;
  run.answering = undefined;
  const expired = pending.expiresAt !== undefined && deps.now() >= pending.expiresAt;
  const label = outcome ?? answered ?? (expired ? 'timeout' : 'decided_elsewhere');
  if (pending.shown.type === 'approval') {
    deps.runs.emit(run, 'approval_resolved', { id: pending.shown.id, outcome: label });
  } else {
    deps.runs.emit(run, 'clarify_answered', { id: pending.shown.id, outcome: label });
  }
}

/** Waits for the continuation of a parked turn (or its recovery after a crash). */
async function watchResume(deps: FollowRunDeps, run: Run, turnId: string, parkId: string): Promise<TurnEnd> {
  const waitMs =
    Math.max(0, (run.pending?.expiresAt ?? deps.now() + 3_600_000) - deps.now()) + deps.timeoutMs;
  const options = (eventId: string) => ({
    eventId,
    timeoutMs: waitMs,
    onProgress: (event: TurnProgressEvent) => onProgress(deps, run, event),
  });
  const resumeId = `resume:${turnId}:${parkId}`;
  const watches = await Promise.all([
    deps.turns.watch(options(resumeId)),
    deps.turns.watch(options(`${resumeId}:recover`)),
  ]);
  const end = await Promise.race(watches.map((watch) => watch.done));
  for (const watch of watches) watch.cancel();
  if (end.type !== 'timeout') settlePending(deps, run);
  return end;
}

function finish(deps: FollowRunDeps, run: Run, end: Exclude<TurnEnd, { type: 'parked' }>): void {
  run.pending = undefined;
  run.finishedAt = deps.now();
  if (end.type === 'final') {
    run.status = 'done';
    run.output = end.text;
    run.usage = end.usage;
    deps.runs.emit(run, 'done', {
      output: end.text,
      ...(end.usage !== undefined
        ? { usage: { input_tokens: end.usage.promptTokens, output_tokens: end.usage.completionTokens } }
        : {}),
    });
    return;
  }
  run.status = 'failed';
  run.error =
    end.type === 'timeout'
      ? { code: 'timeout', message: 'The turn did not finish in time; it may still end in its session.' }
      : end.code === 'interrupted'
        ? { code: 'stopped', message: 'The run was stopped.' }
        : { code: end.code, message: end.message };
  deps.runs.emit(run, 'failed', { ...run.error });
}
