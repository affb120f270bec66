import type { ApprovalChoice } from '../../approval/approval-types.js';
import type { PlatformAdapter } from '../../platforms/adapter.js';
import type { ControlDeps } from '../control-deps.js';
import { renderApprovalOutcome } from '../prompts/render-approval-prompt.js';
import type { ActionPromptRecord, ActionPromptStore } from '../store/action-prompt-store.js';

export type DecisionOutcome = ApprovalChoice | 'timeout' | 'cancelled';

/**
 * After a decision is recorded in the gate: marks the chat prompt resolved (first caller only),
 * edits it to show the outcome and who decided, and resumes the parked turn.
 */
export async function settleApprovalPrompt(
  deps: Pick<ControlDeps, 'runner' | 'now' | 'logger'> & {
    readonly store: Pick<ActionPromptStore, 'resolveActionPrompt' | 'getActionPrompt'>;
  },
  adapters: ReadonlyMap<string, PlatformAdapter>,
  prompt: ActionPromptRecord,
  outcome: DecisionOutcome,
  by: string | undefined,
): Promise<void> {
  const first = await deps.store.resolveActionPrompt(prompt.promptId, {
    outcome,
    resolvedBy: by,
    at: deps.now(),
  });
  if (first) {
    // Read again: a press can come the instant a prompt appears, with the record read before its
    // message id was saved. The sender checks for a resolution after saving the id; reading after
    // resolving here, one of the two sees both and edits the message.
    const current = await currentPrompt(deps.store, prompt);
    await editPrompt(deps, adapters, current, renderApprovalOutcome(outcome, by));
  }
  // The gate's record is what counts; the decision here only labels the resume.
  await deps.runner.resume({
    turnId: prompt.turnId,
    parkId: prompt.parkId,
    ...(outcome === 'cancelled' ? {} : { decision: outcome }),
  });
}

/** The stored record of a prompt (its message id may have been saved since it was read). */
export async function currentPrompt(
  store: Pick<ActionPromptStore, 'getActionPrompt'>,
  prompt: ActionPromptRecord,
): Promise<ActionPromptRecord> {
  if (!isUnsentPrompt(prompt)) return prompt;
  return (await store.getActionPrompt(prompt.promptId)) ?? prompt;
}

/** Replaces a prompt's text (and its buttons) where the platform can edit; failures are logged. */
export async function editPrompt(
  deps: Pick<ControlDeps, 'logger'>,
  adapters: ReadonlyMap<string, PlatformAdapter>,
  prompt: ActionPromptRecord,
  text: string,
): Promise<void> {
  const adapter = adapters.get(prompt.platform);
  if (adapter === undefined || isUnsentPrompt(prompt) || !adapter.limits.supportsEdit) return;
  try {
    await adapter.editText(
      { chatId: prompt.chatId, ...(prompt.threadId !== undefined ? { threadId: prompt.threadId } : {}) },
      prompt.messageId,
      { text },
    );
  } catch (error) {
    deps.logger.warn(
      { sessionKey: prompt.sessionKey, err: (error as Error).message },
      'could not edit a prompt',
    );
  }
}

/**
 * The message id a prompt is recorded with before it is sent (a press may come the instant it
 * appears, before its real id is saved). No platform message id has this form.
 */
export function unsentMessageId(promptId: string): string {
  return `unsent:${promptId}`;
}

/** True while a prompt's message is not known: not sent yet, or sent without an id. */
export function isUnsentPrompt(prompt: Pick<ActionPromptRecord, 'messageId' | 'promptId'>): boolean {
  return prompt.messageId === '' || prompt.messageId === unsentMessageId(prompt.promptId);
}
