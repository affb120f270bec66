import type { ApprovalOutcome } from '../../approval/approval-store.js';
import type { InboundAction, InboundResult, PlatformAdapter } from '../../platforms/adapter.js';
import type { ControlDeps } from '../control-deps.js';
import {
  currentPrompt,
  type DecisionOutcome,
  editPrompt,
  settleApprovalPrompt,
} from '../outbound/approval-decisions.js';
import { parseActionData } from '../prompts/action-data.js';
import { renderApprovalOutcome } from '../prompts/render-approval-prompt.js';
import type { ActionPromptRecord } from '../store/action-prompt-store.js';

const CHOICE_TEXT = {
  once: 'allowed once',
  session: 'allowed for this session',
  always: 'always allowed',
  deny: 'denied',
} as const;

export const NO_USER_NOTICE =
  'This answer does not say who sent it, so it cannot be taken. Nothing was changed.';
export const OTHER_CHAT_NOTICE =
  'This button belongs to a prompt shown in another chat or thread; answer it there. Nothing was changed.';

/**
 * True when an action comes from the chat (and thread) its prompt was shown in: a decision
 * counts only where the question was asked, whoever sends it.
 */
function sameChat(prompt: Pick<ActionPromptRecord, 'chatId' | 'threadId'>, event: InboundAction): boolean {
  return prompt.chatId === event.chat.chatId && (prompt.threadId ?? '') === (event.chat.threadId ?? '');
}

/**
 * A button press on a prompt. Every check happens before anything changes: the data must parse,
 * the clicker must be named, the prompt must exist and have been shown in the chat (and thread)
 * the press comes from, the clicker must be the requester or an admin, and the gate must accept
 * the decision (pending, not expired, same command). Anything else gets a short notice.
 */
export async function handleAction(
  deps: ControlDeps,
  adapters: ReadonlyMap<string, PlatformAdapter>,
  event: InboundAction,
  isAdmin: boolean,
): Promise<InboundResult> {
  const parsed = parseActionData(event.data);
  if (parsed === undefined) return { status: 'answered', notice: 'This button is not valid.' };
  // A decision names who took it: the requester check cannot hold for an anonymous click.
  if (event.sender.userId.trim() === '') {
    return { status: 'answered', notice: NO_USER_NOTICE };
  }
  const who = event.sender.userName ?? event.sender.userId;

  if (parsed.kind === 'clarify') {
    const prompt = await deps.store.getActionPrompt(parsed.promptId);
    if (prompt === undefined || prompt.kind !== 'clarify' || prompt.platform !== event.platform) {
      return { status: 'answered', notice: 'This question is not known (any more).' };
    }
    if (!sameChat(prompt, event)) return { status: 'answered', notice: OTHER_CHAT_NOTICE };
    if (prompt.resolved !== undefined)
      return { status: 'answered', notice: 'This question was already answered.' };
    if (prompt.userId !== undefined && prompt.userId !== event.sender.userId && !isAdmin) {
      return { status: 'answered', notice: 'Only the person who was asked can answer.' };
    }
    const answer = prompt.choices[parsed.choice];
    if (answer === undefined) return { status: 'answered', notice: 'This button is not valid.' };
    if (
      !(await deps.store.resolveActionPrompt(prompt.promptId, {
        outcome: 'answered',
        resolvedBy: who,
        answer,
        at: deps.now(),
      }))
    ) {
      return { status: 'answered', notice: 'This question was already answered.' };
    }
    const answered = `❓ Answered by ${who}: ${answer}`;
    await editPrompt(deps, adapters, await currentPrompt(deps.store, prompt), answered);
    await settlePressedCopy(deps, adapters, prompt, event, answered);
    await deps.runner.resume({ turnId: prompt.turnId, parkId: prompt.parkId, answer });
    return { status: 'answered', notice: `Answered: ${answer}` };
  }

  const prompt = await deps.store.findActionPromptByRequest(parsed.requestId);
  if (prompt === undefined || prompt.platform !== event.platform) {
    return { status: 'answered', notice: 'This approval is not known (any more). Nothing was changed.' };
  }
  if (!sameChat(prompt, event)) {
    deps.logger.warn(
      {
        sessionKey: prompt.sessionKey,
        platform: event.platform,
        chatId: event.chat.chatId,
        userId: event.sender.userId,
      },
      'approval click from another chat refused',
    );
    return { status: 'answered', notice: OTHER_CHAT_NOTICE };
  }
  const report = await deps.approvals.decide(parsed.requestId, parsed.choice, {
    userId: event.sender.userId,
    admin: isAdmin,
  });
  switch (report.status) {
    case 'recorded':
      await settlePressedCopy(deps, adapters, prompt, event, renderApprovalOutcome(parsed.choice, who));
      await settleApprovalPrompt(deps, adapters, prompt, parsed.choice, who);
      return { status: 'answered', notice: `Done: ${CHOICE_TEXT[parsed.choice]}.` };
    case 'already_decided': {
      // The first answer may have been recorded by a process that died before it settled the
      // prompt and resumed the turn (this is often that very press, delivered again): finish
      // both — each happens once however often it is asked — so the turn does not sit parked
      // until the request expires.
      const settled = settledDecision(report.outcome);
      if (settled !== undefined) {
        const by = settled.userId === event.sender.userId ? who : settled.userId;
        await settlePressedCopy(deps, adapters, prompt, event, renderApprovalOutcome(settled.outcome, by));
        await settleApprovalPrompt(deps, adapters, prompt, settled.outcome, by);
      }
      return { status: 'answered', notice: 'This was already decided. Nothing was changed.' };
    }
    case 'expired':
      await settlePressedCopy(deps, adapters, prompt, event, renderApprovalOutcome('timeout', undefined));
      await settleApprovalPrompt(deps, adapters, prompt, 'timeout', undefined);
      return { status: 'answered', notice: 'Too late: this approval expired and the command did not run.' };
    case 'forbidden':
      return { status: 'answered', notice: 'Only the person who asked, or an admin, can decide this.' };
    case 'scope_refused':
      return { status: 'answered', notice: 'That choice is not available for this command.' };
    default:
      return { status: 'answered', notice: 'This approval is not valid. Nothing was changed.' };
  }
}

/**
 * A prompt can be shown twice: its sender died after the platform took the message but before
 * its id was saved, and the outbox sent it again. A press on the copy the store does not know
 * gives that copy the outcome too (the stored one is settled as usual), so no live button is left
 * behind — also while the stored id is still unsaved (the copy sent again is in flight): its
 * sender edits only the message it saves. When the press was on that very message, it is edited
 * twice with the same text, which changes nothing.
 */
async function settlePressedCopy(
  deps: ControlDeps,
  adapters: ReadonlyMap<string, PlatformAdapter>,
  prompt: ActionPromptRecord,
  event: InboundAction,
  text: string,
): Promise<void> {
  const current = await currentPrompt(deps.store, prompt);
  if (event.messageId === '' || event.messageId === current.messageId) return;
  await editPrompt(deps, adapters, { ...current, messageId: event.messageId }, text);
}

/** The outcome a recorded decision shows on its prompt, and who took it. */
function settledDecision(
  outcome: ApprovalOutcome,
): { readonly outcome: DecisionOutcome; readonly userId: string | undefined } | undefined {
  if (outcome.state === 'approved') return { outcome: outcome.scope, userId: outcome.decision.userId };
  if (outcome.state === 'denied') {
    return {
      outcome: outcome.cause === 'cancelled' ? 'cancelled' : 'deny',
      userId: outcome.decision.userId,
    };
  }
  return undefined;
}
