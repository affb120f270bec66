import type { InboundAction, InboundEvent, Sender } from '../adapter.js';
import {
  type CardActionEvent,
  cardActionSchema,
  type LarkIds,
  type MessageEvent,
  messageEventSchema,
} from './feishu-event.js';
import { FEISHU_PLATFORM, type FeishuSettings } from './feishu-settings.js';

/** What the translation needs besides the event. */
export interface TranslateContext {
  readonly settings: Pick<
    FeishuSettings,
    'groupPolicy' | 'requireMention' | 'allowBots' | 'groupAllowed' | 'configuredIds'
  >;
  readonly botOpenId: string;
  /** `gateway.group_reply: all`: unaddressed group messages go to the gateway too. */
  readonly groupReplyAll: boolean;
  readonly now: number;
}

/** A message to hand over, its lane (the chat) and the image keys it carries. */
export type Translation =
  | {
      readonly kind: 'event';
      readonly event: InboundEvent;
      readonly lane: string | undefined;
      /** Images of the message to download (`image` messages, images in a post). */
      readonly imageKeys: readonly string[];
    }
  | { readonly kind: 'skip'; readonly reason: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Who a sender is to the gateway: their open_id, or their user_id when the operator listed that
 * user_id in allowed_users or admin_users (so either id works in the config).
 */
export function senderIdOf(who: LarkIds | undefined, configuredIds: ReadonlySet<string>): string {
  const userId = who?.user_id;
  if (userId !== undefined && userId !== '' && configuredIds.has(userId)) return userId;
  return who?.open_id ?? '';
}

type Mentions = NonNullable<MessageEvent['message']['mentions']>;

/** Mention placeholders (`@_user_1`) become `@Name`; the bot's own mention is removed. */
function replaceMentions(text: string, mentions: Mentions, botOpenId: string): string {
  let out = text;
  for (const mention of mentions) {
    const isBot = mention.id?.open_id === botOpenId;
    out = out.split(mention.key).join(isBot ? '' : `@${mention.name ?? ''}`);
  }
  return out;
}

function postElementText(
  element: Record<string, unknown>,
  mentions: Mentions,
  botOpenId: string,
  images: string[],
): string {
  const text = typeof element['text'] === 'string' ? element['text'] : '';
  switch (element['tag']) {
    case 'a':
      return typeof element['href'] === 'string' && element['href'] !== text
        ? `[${text}](${element['href']})`
        : text;
    case 'at': {
      const id = String(element['user_id'] ?? '');
      const mention = mentions.find((m) => m.key === id || m.id?.open_id === id);
      if (id === botOpenId || mention?.id?.open_id === botOpenId) return '';
      return `@${String(element['user_name'] ?? mention?.name ?? id)}`;
    }
    case 'img':
      if (typeof element['image_key'] === 'string') images.push(element['image_key']);
      return '';
    case 'code_block':
      return `\`\`\`${typeof element['language'] === 'string' ? element['language'].toLowerCase() : ''}\n${text}\n\`\`\``;
    case 'emotion':
      return typeof element['emoji_type'] === 'string' ? `:${element['emoji_type']}:` : '';
    default:
      return text;
  }
}

/** A post (`{title, content: [[…]]}`, maybe under a language key) as plain text. */
function postText(
  value: Record<string, unknown>,
  mentions: Mentions,
  botOpenId: string,
  images: string[],
): string {
  const body = Array.isArray(value['content'])
    ? value
    : Object.values(value).find((v) => isRecord(v) && Array.isArray(v['content']));
  if (!isRecord(body) || !Array.isArray(body['content'])) return '';
  const lines: string[] = typeof body['title'] === 'string' && body['title'] !== '' ? [body['title']] : [];
  for (const paragraph of body['content']) {
    if (!Array.isArray(paragraph)) continue;
    let line = '';
    for (const element of paragraph.filter(isRecord)) {
      const piece = postElementText(element, mentions, botOpenId, images);
      // A code block stands on lines of its own.
      line += element['tag'] === 'code_block' && line !== '' ? `\n${piece}\n` : piece;
    }
    lines.push(line);
  }
  return lines.join('\n');
}

function parseContent(content: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(content);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

/** The text and images of a message, or undefined for a type the agent cannot read. */
function contentOf(
  message: MessageEvent['message'],
  botOpenId: string,
): { text: string; imageKeys: string[] } | undefined {
  const mentions = message.mentions ?? [];
  const content = parseContent(message.content);
  const imageKeys: string[] = [];
  switch (message.message_type) {
    case 'text': {
      const text = typeof content['text'] === 'string' ? content['text'] : '';
      return { text: replaceMentions(text, mentions, botOpenId), imageKeys };
    }
    case 'post':
      return { text: postText(content, mentions, botOpenId, imageKeys), imageKeys };
    case 'image':
      if (typeof content['image_key'] === 'string') imageKeys.push(content['image_key']);
      return { text: '', imageKeys };
    default:
      return undefined;
  }
}

function groupRefusal(
  context: TranslateContext,
  sender: MessageEvent['sender'],
  mentioned: boolean,
): string | undefined {
  const { settings } = context;
  if (settings.groupPolicy === 'disabled') return 'groups are disabled (group_policy)';
  if (settings.groupPolicy === 'allowlist') {
    const ids = [sender.sender_id?.open_id, sender.sender_id?.user_id].filter(
      (id): id is string => id !== undefined && id !== '',
    );
    if (!ids.some((id) => settings.groupAllowed.has(id))) return 'sender not on the group allowlist';
  }
  if (settings.requireMention && !mentioned && !context.groupReplyAll) return 'not mentioned';
  return undefined;
}

/** `im.message.receive_v1` → a message or command for the gateway, or why it is skipped. */
export function translateMessage(raw: unknown, context: TranslateContext): Translation {
  const parsed = messageEventSchema.safeParse(raw);
  if (!parsed.success) return { kind: 'skip', reason: 'malformed message event' };
  const { sender, message } = parsed.data;
  const { settings, botOpenId } = context;
  if (sender.sender_id?.open_id === botOpenId) return { kind: 'skip', reason: 'own message' };
  const mentioned = (message.mentions ?? []).some((m) => m.id?.open_id === botOpenId);
  const isBot = sender.sender_type !== undefined && sender.sender_type !== 'user';
  if (isBot && (settings.allowBots === 'none' || (settings.allowBots === 'mentions' && !mentioned))) {
    return { kind: 'skip', reason: 'message from a bot' };
  }
  const group = message.chat_type !== 'p2p';
  if (group) {
    const refusal = groupRefusal(context, sender, mentioned);
    if (refusal !== undefined) return { kind: 'skip', reason: refusal };
  }
  const content = contentOf(message, botOpenId);
  if (content === undefined)
    return { kind: 'skip', reason: `unsupported message type ${message.message_type}` };
  const text = content.text.replace(/[ \t]+/g, ' ').trim();
  if (text === '' && content.imageKeys.length === 0) return { kind: 'skip', reason: 'empty message' };
  const senderInfo: Sender = {
    userId: senderIdOf(sender.sender_id, settings.configuredIds),
    ...(isBot ? { isBot: true } : {}),
  };
  const base = {
    platform: FEISHU_PLATFORM,
    // The message id, not the event id: Lark may deliver one message in two events.
    eventId: message.message_id,
    messageId: message.message_id,
    chat: { chatId: message.chat_id, chatType: group ? ('group' as const) : ('dm' as const) },
    sender: senderInfo,
    receivedAt: context.now,
    addressed: !group || mentioned || !settings.requireMention,
  };
  const command = /^\/([A-Za-z0-9_]+)(?:@\S+)?(?:\s+([\s\S]*))?$/.exec(text);
  if (command !== null && content.imageKeys.length === 0) {
    return {
      kind: 'event',
      event: {
        ...base,
        kind: 'command',
        name: (command[1] ?? '').toLowerCase(),
        args: (command[2] ?? '').trim(),
      },
      lane: message.chat_id,
      imageKeys: [],
    };
  }
  return {
    kind: 'event',
    event: {
      ...base,
      kind: 'message',
      text,
      ...(message.parent_id !== undefined && message.parent_id !== ''
        ? { replyToMessageId: message.parent_id }
        : {}),
    },
    lane: message.chat_id,
    imageKeys: content.imageKeys,
  };
}

/** What a button of ours carries in its value: `{ hermes: <ActionChoice.data> }`. */
export const BUTTON_VALUE_KEY = 'hermes';

/** `card.action.trigger` → a button press for the gateway (a forged value arrives as empty data). */
export function translateCardAction(
  raw: unknown,
  eventId: string,
  context: Pick<TranslateContext, 'settings' | 'now'> & {
    /** What the adapter knows of the chat (card callbacks do not say); `group` when unknown. */
    readonly chatTypeOf: (chatId: string) => 'dm' | 'group' | undefined;
  },
): { readonly event: InboundAction; readonly messageId: string } | undefined {
  const parsed = cardActionSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const action: CardActionEvent = parsed.data;
  const value = action.action.value;
  const data = isRecord(value) && typeof value[BUTTON_VALUE_KEY] === 'string' ? value[BUTTON_VALUE_KEY] : '';
  const messageId = action.context.open_message_id;
  const chatId = action.context.open_chat_id ?? '';
  return {
    messageId,
    event: {
      kind: 'action',
      platform: FEISHU_PLATFORM,
      eventId,
      messageId,
      data,
      chat: { chatId, chatType: context.chatTypeOf(chatId) ?? 'group' },
      sender: { userId: senderIdOf(action.operator, context.settings.configuredIds) },
      receivedAt: context.now,
    },
  };
}
