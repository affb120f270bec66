import type { ChatRef, InboundAction, InboundCommand, InboundMessage, Sender } from '../adapter.js';
import type { ActionInput, CommandInput, MessageInput, TestEventFactory } from './test-adapter-types.js';

interface EventBase {
  readonly platform: string;
  readonly eventId: string;
  readonly chat: ChatRef;
  readonly sender: Sender;
  readonly receivedAt: number;
  readonly platformOptions?: Readonly<Record<string, unknown>>;
}

/**
 * Event builders for one test adapter. Event ids (`<platform>-e1`, `-e2`…) and inbound message
 * ids (`in-1`…) are unique per factory; outbound ids (`m1`…) never collide with them.
 */
export function createTestEventFactory(
  platform: string,
  commandPrefix: string,
  now: () => number,
): TestEventFactory {
  let events = 0;
  let inboundMessages = 0;

  function base(input: MessageInput | CommandInput | ActionInput): EventBase {
    events += 1;
    const chat: ChatRef = {
      chatId: input.chatId,
      chatType: input.chatType ?? 'dm',
      ...(input.threadId === undefined ? {} : { threadId: input.threadId }),
    };
    const sender: Sender = {
      userId: input.userId,
      ...(input.userName === undefined ? {} : { userName: input.userName }),
    };
    return {
      platform,
      eventId: input.eventId ?? `${platform}-e${events}`,
      chat,
      sender,
      receivedAt: now(),
      ...(input.platformOptions === undefined ? {} : { platformOptions: input.platformOptions }),
    };
  }

  function nextMessageId(): string {
    inboundMessages += 1;
    return `in-${inboundMessages}`;
  }

  const message = (input: MessageInput): InboundMessage => ({
    ...base(input),
    kind: 'message',
    messageId: nextMessageId(),
    text: input.text,
    addressed: input.addressed ?? true,
    ...(input.replyToMessageId === undefined ? {} : { replyToMessageId: input.replyToMessageId }),
    ...(input.images === undefined ? {} : { images: input.images }),
  });

  const command = (input: CommandInput): InboundCommand => ({
    ...base(input),
    kind: 'command',
    messageId: nextMessageId(),
    name: input.name.toLowerCase(),
    args: (input.args ?? '').trim(),
    addressed: input.addressed ?? true,
  });

  const action = (input: ActionInput): InboundAction => ({
    ...base(input),
    kind: 'action',
    messageId: input.messageId,
    data: input.data,
  });

  return {
    message,
    command,
    action,
    text: (input) => {
      const parsed = parseCommandText(input.text, commandPrefix);
      if (parsed === undefined) return message(input);
      return command({
        chatId: input.chatId,
        userId: input.userId,
        name: parsed.name,
        args: parsed.args,
        ...(input.userName === undefined ? {} : { userName: input.userName }),
        ...(input.chatType === undefined ? {} : { chatType: input.chatType }),
        ...(input.threadId === undefined ? {} : { threadId: input.threadId }),
        ...(input.eventId === undefined ? {} : { eventId: input.eventId }),
        ...(input.addressed === undefined ? {} : { addressed: input.addressed }),
        ...(input.platformOptions === undefined ? {} : { platformOptions: input.platformOptions }),
      });
    },
  };
}

/** `/approve@bot session` → `{ name: 'approve', args: 'session' }`; undefined for plain text. */
function parseCommandText(text: string, prefix: string): { name: string; args: string } | undefined {
  if (prefix === '' || !text.startsWith(prefix)) return undefined;
  const match = /^([A-Za-z0-9_-]+)(?:@\S+)?(?:\s+([\s\S]*))?$/.exec(text.slice(prefix.length));
  if (match === null) return undefined;
  return { name: (match[1] ?? '').toLowerCase(), args: (match[2] ?? '').trim() };
}
