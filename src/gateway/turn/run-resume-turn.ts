import type { InboxItem, TurnContext } from '../queue/turn-queue.js';
import type { ToolCallRecord } from '../store/transcript-store.js';
import { continueTurn } from './continue-turn.js';
import type { OutcomeLatch } from './outcome-latch.js';
import {
  approvalRequestSchema,
  type ParkedState,
  parkedStateSchema,
  RESUMING,
  type Resolution,
} from './parked-state.js';
import type { SegmentResult } from './run-message-turn.js';
import { parkedEventOf, runStep } from './run-step.js';
import type { RunnerCore } from './runner-core.js';
import { type ResumePayload, resumePayloadSchema } from './turn-origin.js';
import { readTurnProgress } from './turn-progress.js';
import { openTurnScope, persist, type TurnScope } from './turn-scope.js';

/** How long the recovery record of a running resume lives before the sweeper resumes it again, ms. */
const RECOVERY_TTL_MS = 60 * 60_000;

/**
 * Continues a parked turn (an inbox item of kind `resume`). The parked state is read, the pause
 * is resolved (the gate's recorded decision for an approval, the user's answer for a question),
 * the parked turn is replaced by a recovery record holding the resolution in one step (exactly
 * one resume wins), so a resume that crashes half-way is finished by its retry from the transcript.
 * The turn then runs under its original turn id and ends with its own outcome.
 *
 * Nothing is emitted for a resume that finds nothing to do: the turn is not parked (a duplicate
 * click), the resume names an older park, or the approval is still undecided.
 */
export async function runResumeTurn(
  core: RunnerCore,
  turn: TurnContext,
  item: InboxItem,
  latch: OutcomeLatch,
): Promise<{ result: SegmentResult; turnId: string }> {
  const payload = resumePayloadSchema.safeParse(item.payload);
  if (!payload.success) {
    await latch.failed({
      turnId: turn.turnId,
      sessionKey: turn.sessionKey,
      origin: undefined,
      code: 'invalid_request',
      message: 'A resume request was malformed and could not continue the paused task.',
    });
    return { result: 'ended', turnId: turn.turnId };
  }
  const turnId = payload.data.turnId;
  const log = core.logger.child({ turnId, sessionKey: turn.sessionKey });
  const skipped = { result: 'skipped' as const, turnId };

  const parked = await core.store.getParkedTurn(turnId);
  if (parked === undefined || parked.sessionKey !== turn.sessionKey) {
    log.info('resume for a turn that is not parked in this session; ignored');
    return skipped;
  }
  const decoded = parkedStateSchema.safeParse(parked.state);
  if (!decoded.success) {
    await core.store.deleteParkedTurn(turnId);
    log.error({ problem: decoded.error.message }, 'parked turn state unreadable');
    await latch.failed({
      turnId,
      sessionKey: turn.sessionKey,
      origin: undefined,
      code: 'resume_failed',
      message: 'The paused task could not be continued: its saved state is unreadable.',
    });
    return { result: 'ended', turnId };
  }
  const state = decoded.data;

  let resolution: Resolution;
  let grant = false;
  if (parked.reason === RESUMING) {
    resolution = state.resolution ?? { kind: 'dispatch' };
    grant = await grantSurvived(core, state, resolution);
  } else {
    if (payload.data.parkId !== undefined && payload.data.parkId !== state.parkId) {
      // A retry of this resume whose earlier run parked the turn again and died before its
      // prompt was recorded: say so again (deduped downstream), or nobody is ever asked.
      if (turn.attempt > 1) {
        log.info('the turn parked again in an earlier run of this resume; showing its prompt again');
        await latch.parked(parkedEventOf(state));
        return { result: 'ended', turnId };
      }
      log.info('resume for an earlier park of this turn; ignored');
      return skipped;
    }
    const decided = await resolve(core, state, payload.data);
    if (decided === 'pending') {
      log.info('resume while the approval is still undecided; the turn stays parked');
      return skipped;
    }
    ({ resolution, grant } = decided);
    // The park becomes the recovery record in one step: a crash right here leaves one of the
    // two, so the retry of this resume finds the turn (it once found neither, and the turn was
    // never answered).
    const claimed = await core.store.replaceParkedTurn(turnId, parked.reason, {
      turnId,
      sessionKey: state.sessionKey,
      reason: RESUMING,
      state: { ...state, resolution },
      expiresAt: core.now() + RECOVERY_TTL_MS,
    });
    if (!claimed) return skipped;
    log.debug({ parkId: state.parkId, grant }, 'resume claimed the parked turn');
  }

  const opened = await openTurnScope(core, {
    turnId,
    sessionKey: state.sessionKey,
    origin: state.origin,
    sessionId: state.sessionId,
    signal: turn.signal,
    takeSteering: () => turn.takeSteering(),
    latch,
  });
  if (!opened.ok) {
    await latch.failed({
      turnId,
      sessionKey: state.sessionKey,
      origin: state.origin,
      code: opened.code,
      message: opened.message,
    });
  } else {
    const parkedAgain = await answerPendingCall(opened.scope, state, resolution, grant, async () => {
      // The grant is used: a retry from here on asks again rather than running the command twice.
      await core.store.saveParkedTurn({
        turnId,
        sessionKey: state.sessionKey,
        reason: RESUMING,
        state: { ...state, resolution: { kind: 'dispatch' } },
        expiresAt: core.now() + RECOVERY_TTL_MS,
      });
    });
    if (!parkedAgain) await continueTurn(opened.scope);
  }
  if (latch.outcome !== 'parked') await core.store.deleteParkedTurn(turnId);
  return { result: 'ended', turnId };
}

async function resolve(
  core: RunnerCore,
  state: ParkedState,
  payload: ResumePayload,
): Promise<'pending' | { resolution: Resolution; grant: boolean }> {
  if (state.reason !== 'approval')
    return { resolution: { kind: 'result', content: answerResult(payload.answer) }, grant: false };
  const request = approvalRequestSchema.safeParse(state.request);
  if (core.approvals === undefined || !request.success)
    return { resolution: { kind: 'dispatch' }, grant: false };
  const decision = await core.approvals.controller.resume(request.data.id, {
    command: request.data.command,
    cwd: request.data.cwd,
    coalesced: request.data.coalesced,
  });
  switch (decision.kind) {
    case 'pending':
      return 'pending';
    case 'deny':
      return {
        resolution: { kind: 'result', content: JSON.stringify({ error: decision.message }) },
        grant: false,
      };
    case 'allow':
      return { resolution: { kind: 'dispatch', grantedRequestId: request.data.id }, grant: true };
    case 'reask':
      // An "allow once" claimed by an earlier run of this resume that died before it replaced
      // the park (the park is still here, so no command ran with it): the retry inherits the
      // claim rather than asking the person again. Only this park's resumes claim its request.
      if (!request.data.coalesced && (await onceClaimed(core, request.data.id)))
        return { resolution: { kind: 'dispatch', grantedRequestId: request.data.id }, grant: true };
      return { resolution: { kind: 'dispatch' }, grant: false };
  }
}

/** True when the request was approved "once" and that approval has been claimed. */
async function onceClaimed(core: RunnerCore, requestId: string): Promise<boolean> {
  const outcome = await core.approvals?.controller.outcome(requestId);
  return outcome?.state === 'approved' && outcome.scope === 'once' && outcome.claimed;
}

/**
 * True when a crashed resume had claimed an "allow once" for the paused call and the command has
 * not reached the gate since: the recovery record names the request, and the gate's store says
 * that request was approved once and claimed (by that resume: a claim is taken once).
 */
async function grantSurvived(core: RunnerCore, state: ParkedState, resolution: Resolution): Promise<boolean> {
  if (resolution.kind !== 'dispatch' || resolution.grantedRequestId === undefined) return false;
  const request = approvalRequestSchema.safeParse(state.request);
  if (core.approvals === undefined || !request.success) return false;
  if (request.data.id !== resolution.grantedRequestId) return false;
  return onceClaimed(core, request.data.id);
}

function answerResult(answer: string | undefined): string {
  const text = answer?.trim() ?? '';
  return text === ''
    ? JSON.stringify({
        answered: false,
        note: 'The user did not answer in time. Proceed with your best judgement and say what you assumed.',
      })
    : JSON.stringify({ answered: true, answer: text });
}

/** Gives the paused call its result (or runs it again); true when it paused again. */
async function answerPendingCall(
  scope: TurnScope,
  state: ParkedState,
  resolution: Resolution,
  grant: boolean,
  grantUsed: () => Promise<void>,
): Promise<boolean> {
  const call: ToolCallRecord = state.toolCall;
  const open = readTurnProgress(scope.transcript, scope.turnId).openStep;
  if (open === undefined || !open.missing.some((missing) => missing.id === call.id)) return false;
  if (resolution.kind === 'result') {
    await persist(scope, [
      { role: 'tool', content: resolution.content, toolCallId: call.id, name: call.function.name },
    ]);
    return false;
  }
  const approvals = scope.core.approvals;
  const request = approvalRequestSchema.safeParse(state.request);
  const revoke =
    grant && approvals !== undefined && request.success
      ? approvals.grant(scope.sessionKey, request.data.commandHash, request.data.findings, grantUsed)
      : undefined;
  try {
    return (await runStep(scope, [call])) === 'parked';
  } finally {
    revoke?.();
  }
}
