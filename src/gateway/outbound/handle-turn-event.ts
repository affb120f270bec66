import { z } from 'zod';
import { approvalRequestSchema } from '../../approval/approval-schemas.js';
import type { ApprovalRequest } from '../../approval/approval-types.js';
import type { ChatAddress, PlatformAdapter } from '../../platforms/adapter.js';
import type { ChatActivity, ControlDeps } from '../control-deps.js';
import type { DeliveryResult } from '../delivery/create-delivery.js';
import type { GatewayEvent } from '../events/gateway-event.js';
import { clarifyPromptId } from '../prompts/clarify-prompt-id.js';
import { renderApprovalOutcome, renderApprovalPrompt } from '../prompts/render-approval-prompt.js';
import { renderClarifyPrompt } from '../prompts/render-clarify-prompt.js';
import type { ActionPromptInput, ActionPromptResolution } from '../store/action-prompt-store.js';
import { type OutboxKind, outboxId } from '../store/outbox-entry.js';
import { editPrompt, isUnsentPrompt, unsentMessageId } from './approval-decisions.js';

const requestSchema = approvalRequestSchema.passthrough();

const clarifySchema = z.object({ question: z.string(), choices: z.array(z.string()).default([]) });

const parkState = z.object({ parkId: z.string() }).passthrough();

/**
 * A turn event for a chat platform: answers and failures are delivered (split, retried,
 * receipted), a parked turn shows its prompt once, and progress keeps "typing…" and the tool
 * progress message going. Once an answer or failure notice is out (or deliberately not shown),
 * or a prompt recorded, its outbox entry is completed. `recovered` marks an answer replayed from the outbox: it leaves
 * the chat's activity alone when another turn of the session is already showing progress.
 */
export async function handleTurnEvent(
  deps: ControlDeps,
  adapter: PlatformAdapter,
  activity: (sessionKey: string) => ChatActivity,
  release: (sessionKey: string) => void,
  event: GatewayEvent,
  recovered = false,
): Promise<void> {
  const origin = event.origin;
  if (origin === undefined || origin.platform !== adapter.platform) return;
  const to: ChatAddress = {
    chatId: origin.chatId,
    ...(origin.threadId !== undefined ? { threadId: origin.threadId } : {}),
  };
  const chat = activity(event.sessionKey);

  switch (event.type) {
    case 'progress': {
      // A turn resumed after a prompt shows "typing…" again (it was paused while the prompt waited).
      chat.typing?.resume();
      chat.typing ??= deps.delivery.keepTyping(adapter, to);
      if (chat.turnId !== event.turnId) {
        await chat.progress?.finish();
        chat.progress = deps.delivery.progress(adapter, to, deps.config.display.tool_progress);
        chat.turnId = event.turnId;
      }
      chat.progress?.update(event.progress as never);
      return;
    }
    case 'final': {
      if (!recovered || chat.turnId === undefined || chat.turnId === event.turnId) {
        await settle(chat);
        release(event.sessionKey);
      }
      const text = event.text.trim() === '' ? '(The agent finished without a reply.)' : event.text;
      const result = await deps.delivery.deliverText({
        adapter,
        to,
        sessionKey: event.sessionKey,
        receiptKey: `turn:${event.turnId}`,
        text,
        ...(origin.replyToMessageId !== undefined ? { replyToMessageId: origin.replyToMessageId } : {}),
        format: 'markdown',
      });
      if (result.status === 'failed') {
        deps.observer?.deliveryFailed?.(adapter.platform);
        deps.logger.error({ sessionKey: event.sessionKey, err: result.error }, 'answer not delivered');
      }
      await report(deps, event, 'final', result);
      await markOutcome(adapter, to, origin.replyToMessageId, 'done');
      await completeIfDone(deps, 'final', event, result);
      return;
    }
    case 'failed': {
      if (!recovered || chat.turnId === undefined || chat.turnId === event.turnId) {
        await settle(chat);
        release(event.sessionKey);
      }
      if (event.code === 'interrupted') {
        await completeIfDone(deps, 'failed', event, { status: 'empty' });
        return;
      }
      const result = await deps.delivery.deliverText({
        adapter,
        to,
        sessionKey: event.sessionKey,
        receiptKey: `failed:${event.turnId || event.eventIds.join(',')}`,
        text: `⚠️ ${event.message}`,
      });
      if (result.status === 'failed') deps.observer?.deliveryFailed?.(adapter.platform);
      await report(deps, event, 'failed', result, event.message);
      await markOutcome(adapter, to, origin.replyToMessageId, 'failed');
      await completeIfDone(deps, 'failed', event, result);
      return;
    }
    case 'parked': {
      // A prompt replayed from the outbox whose park was answered (or expired) meanwhile is old news.
      if (recovered && !(await stillParked(deps, event))) {
        await completeIfDone(deps, 'parked', event, { status: 'empty' });
        return;
      }
      await chat.progress?.finish();
      chat.progress = undefined;
      chat.turnId = undefined;
      chat.typing?.pause();
      // The prompt is recorded whether or not it could be shown (/approve and /deny work either
      // way); one the platform would not take yet stays in the outbox, whose sweep shows it later.
      const shown = await showPrompt(deps, adapter, to, event);
      await completeIfDone(deps, 'parked', event, { status: shown ? 'empty' : 'failed' });
      return;
    }
  }
}

/** Tells the observer how an answer's delivery went; its failure changes nothing. */
async function report(
  deps: ControlDeps,
  event: GatewayEvent,
  kind: 'final' | 'failed',
  result: DeliveryResult,
  failure?: string,
): Promise<void> {
  if (deps.observer?.answerDelivery === undefined) return;
  try {
    await deps.observer.answerDelivery({
      sessionKey: event.sessionKey,
      turnId: event.turnId,
      kind,
      delivered: result.status !== 'failed',
      ...(result.status === 'failed' ? { error: result.error } : {}),
      ...(failure !== undefined ? { failure } : {}),
    });
  } catch (error) {
    deps.logger.warn(
      { sessionKey: event.sessionKey, err: (error as Error).message },
      'delivery report failed',
    );
  }
}

/** Lets the platform show how the user's message ended (a reaction); its failure changes nothing. */
async function markOutcome(
  adapter: PlatformAdapter,
  to: ChatAddress,
  messageId: string | undefined,
  outcome: 'done' | 'failed',
): Promise<void> {
  if (messageId === undefined || adapter.markOutcome === undefined) return;
  await adapter.markOutcome(to, messageId, outcome).catch(() => undefined);
}

/** True while the turn is parked on exactly this park (not answered, not expired and swept). */
async function stillParked(
  deps: ControlDeps,
  event: Extract<GatewayEvent, { type: 'parked' }>,
): Promise<boolean> {
  const parked = await deps.store.getParkedTurn(event.turnId);
  if (parked === undefined) return false;
  const state = parkState.safeParse(parked.state);
  return state.success && state.data.parkId === event.parkId;
}

/**
 * Completes the outbox entry of an answer that is out (or has nothing to show), or of a prompt
 * once handled. A failed delivery leaves it pending: the outbox sweep tries again later.
 */
async function completeIfDone(
  deps: ControlDeps,
  kind: OutboxKind,
  event: GatewayEvent,
  result: Pick<DeliveryResult, 'status'>,
): Promise<void> {
  if (result.status === 'failed' || event.turnId === '') return;
  try {
    await deps.store.completeOutbox(outboxId(kind, event.type === 'parked' ? event.parkId : event.turnId));
  } catch (error) {
    // The answer is out; a later sweep finds its receipts and sends nothing again.
    deps.logger.warn(
      { sessionKey: event.sessionKey, turnId: event.turnId, err: (error as Error).message },
      'outbox entry not completed',
    );
  }
}

async function settle(chat: ChatActivity): Promise<void> {
  chat.typing?.stop();
  chat.typing = undefined;
  await chat.progress?.finish();
  chat.progress = undefined;
  chat.turnId = undefined;
}

async function showPrompt(
  deps: ControlDeps,
  adapter: PlatformAdapter,
  to: ChatAddress,
  event: Extract<GatewayEvent, { type: 'parked' }>,
): Promise<boolean> {
  const base = {
    platform: adapter.platform,
    chatId: to.chatId,
    threadId: to.threadId,
    sessionKey: event.sessionKey,
    turnId: event.turnId,
    parkId: event.parkId,
    userId: event.origin?.userId,
  };
  if (event.reason === 'approval') {
    const parsed = requestSchema.safeParse(event.payload);
    if (!parsed.success) {
      deps.logger.error({ sessionKey: event.sessionKey }, 'parked approval without a readable request');
      return true;
    }
    const request = parsed.data as unknown as ApprovalRequest;
    const existing = await deps.store.findActionPromptByRequest(request.id);
    if (existing !== undefined && existing.parkId === event.parkId && !isUnsentPrompt(existing)) return true;
    const prompt = renderApprovalPrompt(request, { now: deps.now(), prefix: adapter.limits.commandPrefix });
    return showRecorded(deps, adapter, to, event.sessionKey, prompt, {
      ...base,
      promptId: request.id,
      kind: 'approval',
      requestId: request.id,
      expiresAt: request.expiresAt,
    });
  }
  if (event.reason === 'clarify') {
    const parsed = clarifySchema.safeParse(event.payload);
    if (!parsed.success) return true;
    const promptId = clarifyPromptId(event.parkId);
    const existing = await deps.store.getActionPrompt(promptId);
    if (existing !== undefined && !isUnsentPrompt(existing)) return true;
    const prompt = renderClarifyPrompt(promptId, parsed.data);
    return showRecorded(deps, adapter, to, event.sessionKey, prompt, {
      ...base,
      promptId,
      kind: 'clarify',
      choices: parsed.data.choices.slice(0, 4),
    });
  }
  return true;
}

/**
 * Records a prompt, then shows it, then records its message id. The record comes first: a user
 * may press a button the instant it appears, and the press must find its prompt. A prompt
 * answered between the send and the second save is edited to its outcome at once (the answer
 * could not edit a message whose id was not known yet). False when the platform would not take
 * it yet: the record keeps no message id, so the outbox's next try shows it.
 */
async function showRecorded(
  deps: ControlDeps,
  adapter: PlatformAdapter,
  to: ChatAddress,
  sessionKey: string,
  prompt: ReturnType<typeof renderApprovalPrompt>,
  record: Omit<ActionPromptInput, 'messageId'>,
): Promise<boolean> {
  await deps.store.saveActionPrompt({ ...record, messageId: unsentMessageId(record.promptId) });
  const messageId = await send(deps, adapter, to, sessionKey, record.promptId, prompt);
  if (messageId === undefined) return false;
  if (messageId === '') return true;
  await deps.store.saveActionPrompt({ ...record, messageId });
  const saved = await deps.store.getActionPrompt(record.promptId);
  if (saved?.resolved === undefined) return true;
  const text = settledPromptText(saved.kind, saved.resolved);
  if (text !== undefined) await editPrompt(deps, new Map([[adapter.platform, adapter]]), saved, text);
  return true;
}

/** What a prompt settled before its message id was saved shows (as the answer would have edited it). */
function settledPromptText(kind: string, resolved: ActionPromptResolution): string | undefined {
  const { outcome, resolvedBy: by, answer } = resolved;
  if (kind === 'clarify') {
    if (outcome === 'timeout') return '⌛ This question expired without an answer.';
    const said = answer === undefined ? '.' : `: ${answer}`;
    return by === undefined ? `❓ Answered${said}` : `❓ Answered by ${by}${said}`;
  }
  const parsed = approvalOutcomeSchema.safeParse(outcome);
  return parsed.success ? renderApprovalOutcome(parsed.data, by) : undefined;
}

const approvalOutcomeSchema = z.enum(['once', 'session', 'always', 'deny', 'timeout', 'cancelled']);

/**
 * Shows a prompt: with buttons where the platform has them, else as text naming the commands.
 * Both go out with delivery's retries. The text version stands in only when the platform refuses
 * the buttons for good; while it is merely failing (an outage, a rate limit, a timeout) the
 * prompt is left for the outbox to show later, buttons and all. Returns the message id, `''`
 * when there was nothing to show, undefined when nothing could be shown yet.
 */
async function send(
  deps: ControlDeps,
  adapter: PlatformAdapter,
  to: ChatAddress,
  sessionKey: string,
  promptId: string,
  prompt: ReturnType<typeof renderApprovalPrompt>,
): Promise<string | undefined> {
  if (adapter.limits.supportsButtons && prompt.choices.length > 0) {
    const shown = await deps.delivery.sendPrompt({ adapter, to, sessionKey, prompt });
    if (shown.status === 'sent') return shown.messageId;
    if (shown.status === 'failed') {
      deps.observer?.deliveryFailed?.(adapter.platform);
      deps.logger.warn(
        { sessionKey, err: shown.error },
        'prompt not shown yet (the platform is failing); the outbox shows it again',
      );
      return undefined;
    }
    deps.logger.warn({ sessionKey, err: shown.error }, 'prompt buttons refused; sending the text version');
  }
  const result = await deps.delivery.deliverText({
    adapter,
    to,
    sessionKey,
    receiptKey: `prompt:${promptId}`,
    text: prompt.choices.length === 0 ? prompt.text : prompt.fallbackText,
    format: 'markdown',
  });
  if (result.status === 'failed') {
    deps.observer?.deliveryFailed?.(adapter.platform);
    deps.logger.error({ sessionKey, err: result.error }, 'could not show a prompt; the outbox tries again');
    return undefined;
  }
  return result.status === 'empty' ? '' : (result.messageIds[0] ?? '');
}
