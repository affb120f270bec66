import type { InboundCommand, InboundMessage } from '../../platforms/adapter.js';
import { buildSessionKey } from '../session-key.js';
import type { TurnOrigin } from '../turn/turn-origin.js';

/** The session an inbound event belongs to (per user in groups, shared in threads). */
export function sessionKeyOf(event: InboundMessage | InboundCommand): string {
  return buildSessionKey({
    platform: event.platform,
    chatType: event.chat.chatType,
    chatId: event.chat.chatId,
    threadId: event.chat.threadId,
    userId: event.sender.userId,
  });
}

/** The origin a turn carries, so the answer finds its way back to this chat. */
export function originOf(event: InboundMessage | InboundCommand, toolset: string): TurnOrigin {
  return {
    platform: event.platform,
    chatType: event.chat.chatType,
    chatId: event.chat.chatId,
    ...(event.chat.threadId !== undefined ? { threadId: event.chat.threadId } : {}),
    userId: event.sender.userId,
    ...(event.sender.userName !== undefined ? { userName: event.sender.userName } : {}),
    unattended: false,
    toolset,
    replyToMessageId: event.messageId,
    ...(event.kind === 'message' && event.images !== undefined && event.images.length > 0
      ? { images: event.images.slice(0, 8).map((image) => ({ url: image.url })) }
      : {}),
  };
}
