import type { Logger } from 'pino';
import type { ApprovalGateController } from '../../approval/create-approval-gate.js';
import { clarifyPromptId } from '../prompts/clarify-prompt-id.js';
import type { ActionPromptStore } from '../store/action-prompt-store.js';
import type { ParkedTurnStore } from '../store/parked-turn-store.js';
import type { ResumeInput, ResumeSubmission } from './create-turn-runner.js';
import { approvalRequestSchema, parkedStateSchema, RESUMING } from './parked-state.js';

export interface SettledParkDeps {
  readonly store: Pick<ParkedTurnStore, 'listParkedTurns'> & Pick<ActionPromptStore, 'getActionPrompt'>;
  readonly approvals: Pick<ApprovalGateController, 'outcome'> | undefined;
  readonly resume: (input: ResumeInput) => Promise<ResumeSubmission>;
  readonly logger: Logger;
  readonly now: () => number;
  /** How long an answer may wait for its resume before this steps in, ms. */
  readonly graceMs: number;
}

/**
 * Resumes parked turns whose pause is already answered — the approval decided in the gate, the
 * clarify question answered on its prompt — for longer than `graceMs`. The press or reply that
 * answered normally resumes the turn at once; this covers the answer whose resume was lost on
 * the way (the process died between recording the answer and submitting the resume, or the
 * queue was down and the platform stopped delivering the press again). A resume submitted twice
 * is deduped by its event id, and a resume that finds the turn no longer parked does nothing.
 * Returns how many it submitted.
 */
export async function resumeSettledParks(deps: SettledParkDeps): Promise<number> {
  const settledBefore = deps.now() - deps.graceMs;
  let submitted = 0;
  for (const parked of await deps.store.listParkedTurns()) {
    if (parked.reason === RESUMING || parked.createdAt > settledBefore) continue;
    const state = parkedStateSchema.safeParse(parked.state);
    if (!state.success) continue;
    const input = await settledResume(deps, state.data, settledBefore);
    if (input === undefined) continue;
    const result = await deps.resume(input);
    if (result.status !== 'submitted') continue;
    submitted += 1;
    deps.logger.warn(
      { sessionKey: parked.sessionKey, turnId: parked.turnId, parkId: state.data.parkId },
      'resumed a parked turn whose answer had not resumed it',
    );
  }
  return submitted;
}

async function settledResume(
  deps: SettledParkDeps,
  state: { turnId: string; parkId: string; reason: string; request: unknown },
  settledBefore: number,
): Promise<ResumeInput | undefined> {
  const base = { turnId: state.turnId, parkId: state.parkId };
  if (state.reason === 'approval') {
    const request = approvalRequestSchema.safeParse(state.request);
    if (!request.success || deps.approvals === undefined) return undefined;
    const outcome = await deps.approvals.outcome(request.data.id);
    if (outcome.state !== 'approved' && outcome.state !== 'denied') return undefined;
    return outcome.decision.decidedAt <= settledBefore ? base : undefined;
  }
  if (state.reason === 'clarify') {
    const prompt = await deps.store.getActionPrompt(clarifyPromptId(state.parkId));
    const resolved = prompt?.resolved;
    if (resolved === undefined || resolved.outcome !== 'answered' || resolved.at > settledBefore)
      return undefined;
    return { ...base, answer: resolved.answer ?? '' };
  }
  return undefined;
}
