import { z } from 'zod';
import type {
  InboundCommand,
  InboundEvent,
  InboundMessage,
  InboundResult,
  InboundSink,
  PlatformAdapter,
} from '../../platforms/adapter.js';
import type { ChatActivity, ControlDeps } from '../control-deps.js';
import { clarifyPromptId } from '../prompts/clarify-prompt-id.js';
import type { InboxItem, JsonValue, SubmitStatus } from '../queue/turn-queue.js';
import { originOf, sessionKeyOf } from './build-origin.js';
import { handleAction } from './handle-action.js';

const parkState = z.object({ parkId: z.string() }).passthrough();

const ACKS: Partial<Record<SubmitStatus, string>> = {
  queued: '⏳ Got it — I will get to this right after the current task.',
  interrupting: '⚡ Stopping the current task to handle your new message.',
  steered: '⏩ Added to the task I am working on.',
};

/**
 * Ingress for chat platforms: access first, then buttons and commands at once (never queued
 * behind a running turn), a waiting clarify question takes the next reply, and everything else
 * becomes a queued message. Every refusal is deliberate and final (`rejected`); a thrown error
 * means "not accepted", so the platform delivers the event again.
 */
export function createInboundSink(
  deps: ControlDeps,
  adapter: PlatformAdapter,
  adapters: ReadonlyMap<string, PlatformAdapter>,
  activity: (sessionKey: string) => ChatActivity,
): InboundSink {
  const { config, logger } = deps;
  const toolset = deps.toolsets.has(`hermes-${adapter.platform}`)
    ? `hermes-${adapter.platform}`
    : 'hermes-cli';

  async function reply(
    event: InboundMessage | InboundCommand,
    sessionKey: string,
    key: string,
    text: string,
  ) {
    await deps.delivery.deliverText({
      adapter,
      to: {
        chatId: event.chat.chatId,
        ...(event.chat.threadId !== undefined ? { threadId: event.chat.threadId } : {}),
      },
      sessionKey,
      receiptKey: `${adapter.platform}:reply:${event.eventId}:${key}`,
      text,
      replyToMessageId: event.messageId,
    });
  }

  function itemOf(
    event: InboundMessage | InboundCommand,
    sessionKey: string,
    text: string,
    suffix = '',
  ): InboxItem {
    return {
      sessionKey,
      eventId: `${adapter.platform}:${event.eventId}${suffix}`,
      kind: 'message',
      text,
      payload: originOf(event, toolset) as unknown as JsonValue,
      receivedAt: event.receivedAt,
    };
  }

  async function answerClarify(event: InboundMessage, sessionKey: string): Promise<boolean> {
    const open = (await deps.store.listActionPrompts({ sessionKey, pendingOnly: true })).filter(
      (prompt) => prompt.kind === 'clarify',
    );
    const prompt =
      open.find((candidate) => candidate.messageId === event.replyToMessageId) ?? open[open.length - 1];
    if (prompt === undefined) return answeredBefore(event, sessionKey);
    const who = event.sender.userName ?? event.sender.userId;
    if (
      !(await deps.store.resolveActionPrompt(prompt.promptId, {
        outcome: 'answered',
        resolvedBy: who,
        answer: event.text,
        at: deps.now(),
      }))
    ) {
      return false;
    }
    await deps.runner.resume({ turnId: prompt.turnId, parkId: prompt.parkId, answer: event.text });
    return true;
  }

  /**
   * A reply delivered again after it answered a question whose turn has not resumed yet (the
   * resume failed, so the platform delivers the reply again): the same answer, resumed again
   * (deduped), not a new message. Only a turn still parked on that question counts.
   */
  async function answeredBefore(event: InboundMessage, sessionKey: string): Promise<boolean> {
    for (const parked of await deps.store.listParkedTurns({ sessionKey })) {
      if (parked.reason !== 'clarify') continue;
      const state = parkState.safeParse(parked.state);
      if (!state.success) continue;
      const prompt = await deps.store.getActionPrompt(clarifyPromptId(state.data.parkId));
      if (prompt?.resolved?.outcome !== 'answered' || prompt.resolved.answer !== event.text) continue;
      await deps.runner.resume({ turnId: prompt.turnId, parkId: prompt.parkId, answer: event.text });
      return true;
    }
    return false;
  }

  return async (event: InboundEvent): Promise<InboundResult> => {
    // Bots reach the agent only when listed by id (access decides); adapters forward them only
    // when their own switch says so (Discord's allow_bots).
    const access = await deps.access.check(event);
    if (access.decision === 'ignore') return { status: 'rejected', reason: access.reason };
    if (access.decision === 'pair') {
      if (event.kind === 'action') return { status: 'rejected', reason: 'pairing' };
      await deps.delivery.deliverText({
        adapter,
        to: { chatId: event.chat.chatId },
        sessionKey: `pairing:${adapter.platform}:${event.sender.userId}`,
        receiptKey: `${adapter.platform}:pair:${event.eventId}`,
        text: access.reply,
      });
      return { status: 'accepted' };
    }
    const isAdmin = access.isAdmin;
    if (event.kind === 'action') return handleAction(deps, adapters, event, isAdmin);

    const inGroup = event.chat.chatType !== 'dm';
    if (inGroup && !event.addressed && config.gateway.group_reply === 'mentioned') {
      return { status: 'rejected', reason: 'not addressed' };
    }
    const sessionKey = sessionKeyOf(event);

    if (event.kind === 'command') {
      if (!(await deps.store.markEventProcessed(adapter.platform, `cmd:${event.eventId}`, 3_600_000))) {
        return { status: 'accepted' };
      }
      const result = await deps.commands.handle({
        platform: adapter.platform,
        chat: event.chat,
        sender: event.sender,
        isAdmin,
        sessionKey,
        name: event.name,
        args: event.args,
        prefix: adapter.limits.commandPrefix,
        makeItem: (text) => itemOf(event, sessionKey, text, ':queued'),
      });
      for (const [index, text] of result.replies.entries())
        await reply(event, sessionKey, String(index), text);
      return { status: 'accepted' };
    }

    if (await answerClarify(event, sessionKey)) return { status: 'accepted' };
    const submitted = await deps.queue.submit(itemOf(event, sessionKey, event.text));
    logger.debug({ sessionKey, status: submitted.status }, 'message queued');
    if (submitted.status === 'started' || submitted.status === 'queued') {
      const chat = activity(sessionKey);
      chat.typing ??= deps.delivery.keepTyping(adapter, {
        chatId: event.chat.chatId,
        ...(event.chat.threadId !== undefined ? { threadId: event.chat.threadId } : {}),
      });
    }
    const ack = ACKS[submitted.status];
    if (ack !== undefined && config.display.busy_ack_enabled) await reply(event, sessionKey, 'ack', ack);
    return { status: 'accepted' };
  };
}
