import { z } from 'zod';
import { approvalRequestSchema } from '../../approval/approval-schemas.js';
import type { ApprovalGateController } from '../../approval/create-approval-gate.js';
import type { PlatformAdapter } from '../../platforms/adapter.js';
import type { PromptAnswer, PromptAnswerStatus, PromptRef } from '../../platforms/ingress.js';
import type { ControlDeps } from '../control-deps.js';
import { settleApprovalPrompt, unsentMessageId } from '../outbound/approval-decisions.js';
import { clarifyPromptId } from '../prompts/clarify-prompt-id.js';
import type { TurnQueue } from '../queue/turn-queue.js';
import type { ActionPromptRecord, ActionPromptStore } from '../store/action-prompt-store.js';

export interface PlatformPromptDeps {
  readonly store: ActionPromptStore;
  readonly approvals: Pick<ApprovalGateController, 'decide' | 'cancel' | 'listPending'>;
  readonly runner: ControlDeps['runner'];
  readonly queue: Pick<TurnQueue, 'interrupt'>;
  readonly logger: ControlDeps['logger'];
  readonly now: () => number;
  /** Chat adapters of this process: a prompt also shown in a chat is edited there when decided. */
  readonly adapters?: ReadonlyMap<string, PlatformAdapter>;
}

const clarifySchema = z.object({ question: z.string(), choices: z.array(z.string()).default([]) });

/**
 * Prompts of parked turns that a platform without a chat (the API server's runs, the dashboard)
 * shows itself. They are recorded in the same action-prompt table as the chat prompts and decided
 * through the same steps as a button press: the gate's first decision wins atomically, the prompt
 * record is resolved once, and the parked turn resumes.
 */
export function createPlatformPrompts(deps: PlatformPromptDeps) {
  const settleDeps = deps;
  const adapters: ReadonlyMap<string, PlatformAdapter> = deps.adapters ?? new Map();

  /** The prompt record for `ref`, saved first when nobody recorded it yet (a prompt shown over HTTP). */
  async function recorded(ref: PromptRef): Promise<ActionPromptRecord | undefined> {
    const base = {
      platform: ref.platform,
      chatId: ref.chatId,
      sessionKey: ref.sessionKey,
      turnId: ref.turnId,
      parkId: ref.parkId,
      userId: ref.userId,
    };
    if (ref.reason === 'approval') {
      const request = approvalRequestSchema.passthrough().safeParse(ref.payload);
      if (!request.success) return undefined;
      const id = request.data.id;
      const existing = await deps.store.findActionPromptByRequest(id);
      if (existing !== undefined && existing.parkId === ref.parkId) return existing;
      await deps.store.saveActionPrompt({
        ...base,
        promptId: id,
        kind: 'approval',
        messageId: unsentMessageId(id),
        requestId: id,
        expiresAt: request.data.expiresAt,
      });
      return deps.store.findActionPromptByRequest(id);
    }
    if (ref.reason === 'clarify') {
      const question = clarifySchema.safeParse(ref.payload);
      if (!question.success) return undefined;
      const promptId = clarifyPromptId(ref.parkId);
      const existing = await deps.store.getActionPrompt(promptId);
      if (existing !== undefined) return existing;
      await deps.store.saveActionPrompt({
        ...base,
        promptId,
        kind: 'clarify',
        messageId: unsentMessageId(promptId),
        choices: question.data.choices.slice(0, 4),
      });
      return deps.store.getActionPrompt(promptId);
    }
    return undefined;
  }

  async function answer(
    ref: PromptRef,
    given: PromptAnswer,
    by: { readonly userId: string; readonly name?: string; readonly admin?: boolean },
  ): Promise<{ readonly status: PromptAnswerStatus }> {
    const prompt = await recorded(ref);
    if (prompt === undefined || prompt.kind !== given.kind) return { status: 'invalid' };
    const who = by.name ?? by.userId;
    if (given.kind === 'clarify') {
      if (given.answer.trim() === '') return { status: 'invalid' };
      if (prompt.userId !== undefined && prompt.userId !== by.userId && by.admin !== true) {
        return { status: 'forbidden' };
      }
      const first = await deps.store.resolveActionPrompt(prompt.promptId, {
        outcome: 'answered',
        resolvedBy: who,
        at: deps.now(),
      });
      if (!first) return { status: 'already_decided' };
      await deps.runner.resume({ turnId: prompt.turnId, parkId: prompt.parkId, answer: given.answer });
      return { status: 'recorded' };
    }
    const requestId = prompt.requestId ?? prompt.promptId;
    const report = await deps.approvals.decide(requestId, given.choice, {
      userId: by.userId,
      admin: by.admin === true,
    });
    switch (report.status) {
      case 'recorded':
        await settleApprovalPrompt(settleDeps, adapters, prompt, given.choice, who);
        return { status: 'recorded' };
      case 'expired':
        await settleApprovalPrompt(settleDeps, adapters, prompt, 'timeout', undefined);
        return { status: 'expired' };
      case 'already_decided':
      case 'forbidden':
      case 'scope_refused':
        return { status: report.status };
      default:
        return { status: 'invalid' };
    }
  }

  async function stop(
    sessionKey: string,
    pending?: PromptRef,
  ): Promise<{ readonly interrupted: boolean; readonly cancelled: number }> {
    const interrupted = await deps.queue.interrupt(sessionKey);
    let cancelled = 0;
    if (pending !== undefined) await recorded(pending);
    for (const request of await deps.approvals.listPending(sessionKey)) {
      const report = await deps.approvals.cancel(request.id, 'stopped over HTTP');
      if (report.status !== 'recorded') continue;
      cancelled += 1;
      const prompt = await deps.store.findActionPromptByRequest(request.id);
      if (prompt !== undefined)
        await settleApprovalPrompt(settleDeps, adapters, prompt, 'cancelled', undefined);
    }
    if (pending?.reason === 'clarify') {
      const prompt = await deps.store.getActionPrompt(clarifyPromptId(pending.parkId));
      if (
        prompt !== undefined &&
        (await deps.store.resolveActionPrompt(prompt.promptId, { outcome: 'cancelled', at: deps.now() }))
      ) {
        cancelled += 1;
        await deps.runner.resume({ turnId: prompt.turnId, parkId: prompt.parkId });
      }
    }
    return { interrupted, cancelled };
  }

  return { answer, stop };
}
