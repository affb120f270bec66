import { larkIds } from './lark-ids.js';

/**
 * Builders for what Lark pushes to an app: event v2.0 envelopes (`im.message.receive_v1`,
 * `card.action.trigger`) and the v1-style `url_verification` challenge. Pure functions: the fake
 * uses them with its own directory, tests may use them directly.
 */

export interface EventApp {
  readonly appId: string;
  readonly tenantKey: string;
  readonly verificationToken: string;
}

export interface LarkEventEnvelope {
  readonly schema: '2.0';
  readonly header: {
    readonly event_id: string;
    readonly event_type: string;
    readonly create_time: string;
    readonly token: string;
    readonly app_id: string;
    readonly tenant_key: string;
  };
  readonly event: Record<string, unknown>;
}

export interface UrlVerification {
  readonly challenge: string;
  readonly token: string;
  readonly type: 'url_verification';
}

/** Someone (a user or another app's bot) identified the three ways Lark does. */
export interface EventActor {
  readonly openId: string;
  readonly userId?: string;
  readonly unionId?: string;
  readonly name?: string;
  readonly isBot?: boolean;
}

export interface EventMention {
  /** The placeholder in the text, e.g. `@_user_1`. */
  readonly key: string;
  readonly who: EventActor;
}

export function eventEnvelope(
  app: EventApp,
  eventType: string,
  event: Record<string, unknown>,
  options: { eventId?: string; createTime?: number } = {},
): LarkEventEnvelope {
  return {
    schema: '2.0',
    header: {
      event_id: options.eventId ?? larkIds.eventId(),
      event_type: eventType,
      create_time: String(options.createTime ?? Date.now()),
      token: app.verificationToken,
      app_id: app.appId,
      tenant_key: app.tenantKey,
    },
    event,
  };
}

const idsOf = (who: EventActor): Record<string, string> => ({
  union_id: who.unionId ?? '',
  user_id: who.userId ?? '',
  open_id: who.openId,
});

export interface MessageEventInput {
  readonly messageId: string;
  readonly chatId: string;
  readonly chatType: 'p2p' | 'group';
  /** `text`, `post`, `image`, `file`… */
  readonly messageType: string;
  /** The content JSON string, as Lark puts it in the event (see `textContent`, `postContent`). */
  readonly content: string;
  readonly sender: EventActor;
  readonly mentions?: readonly EventMention[];
  readonly createTime?: number;
  readonly parentId?: string;
  readonly rootId?: string;
  readonly threadId?: string;
  readonly eventId?: string;
}

export function messageReceiveEvent(app: EventApp, input: MessageEventInput): LarkEventEnvelope {
  const created = String(input.createTime ?? Date.now());
  return eventEnvelope(
    app,
    'im.message.receive_v1',
    {
      sender: {
        sender_id: idsOf(input.sender),
        sender_type: input.sender.isBot === true ? 'app' : 'user',
        tenant_key: app.tenantKey,
      },
      message: {
        message_id: input.messageId,
        ...(input.rootId !== undefined ? { root_id: input.rootId } : {}),
        ...(input.parentId !== undefined ? { parent_id: input.parentId } : {}),
        create_time: created,
        update_time: created,
        chat_id: input.chatId,
        ...(input.threadId !== undefined ? { thread_id: input.threadId } : {}),
        chat_type: input.chatType,
        message_type: input.messageType,
        content: input.content,
        ...(input.mentions !== undefined && input.mentions.length > 0
          ? {
              mentions: input.mentions.map((m) => ({
                key: m.key,
                id: idsOf(m.who),
                name: m.who.name ?? '',
                tenant_key: app.tenantKey,
              })),
            }
          : {}),
      },
    },
    { ...(input.eventId !== undefined ? { eventId: input.eventId } : {}), createTime: Number(created) },
  );
}

export interface CardActionInput {
  readonly operator: EventActor;
  readonly messageId: string;
  readonly chatId: string;
  /** The clicked element's callback value. */
  readonly value: unknown;
  readonly tag?: string;
  readonly name?: string;
  readonly formValue?: Record<string, unknown>;
  readonly eventId?: string;
}

/** `card.action.trigger` (new card callback): who clicked what on which message. */
export function cardActionEvent(app: EventApp, input: CardActionInput): LarkEventEnvelope {
  return eventEnvelope(
    app,
    'card.action.trigger',
    {
      operator: { tenant_key: app.tenantKey, ...idsOf(input.operator) },
      token: larkIds.cardToken(),
      action: {
        value: input.value,
        tag: input.tag ?? 'button',
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.formValue !== undefined ? { form_value: input.formValue } : {}),
      },
      host: 'im_message',
      context: { open_message_id: input.messageId, open_chat_id: input.chatId },
    },
    input.eventId !== undefined ? { eventId: input.eventId } : {},
  );
}

export function urlVerification(app: EventApp, challenge = larkIds.eventId()): UrlVerification {
  return { challenge, token: app.verificationToken, type: 'url_verification' };
}

/** `{"text": …}`; mention placeholders (`@_user_1`) stay in the text as Lark sends them. */
export const textContent = (text: string): string => JSON.stringify({ text });

/** One element of a post paragraph, as inbound events carry it. */
export type PostElement =
  | { readonly tag: 'text'; readonly text: string; readonly style?: readonly string[] }
  | { readonly tag: 'a'; readonly text: string; readonly href: string }
  | { readonly tag: 'at'; readonly user_id: string; readonly user_name?: string }
  | { readonly tag: 'img'; readonly image_key: string }
  | { readonly tag: 'code_block'; readonly language?: string; readonly text: string };

/** Inbound rich text: `{"title", "content": [[…]]}` (events carry no language layer). */
export const postContent = (title: string, paragraphs: readonly (readonly PostElement[])[]): string =>
  JSON.stringify({ title, content: paragraphs });
