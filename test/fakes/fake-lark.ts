import { randomBytes } from 'node:crypto';
import {
  buildCallbackRequest,
  type CallbackRequest,
  type CallbackResponse,
  type CallbackVariant,
  postCallback,
} from './fake-lark/callback-crypto.js';
import { applyCardAnswer, type ClickRecord } from './fake-lark/card-answer.js';
import type { FakeLarkFailure } from './fake-lark/failures.js';
import {
  cardActionEvent,
  type EventApp,
  type EventMention,
  type LarkEventEnvelope,
  messageReceiveEvent,
  type PostElement,
  postContent,
  textContent,
} from './fake-lark/lark-events.js';
import { startLarkHttp } from './fake-lark/lark-http.js';
import { larkIds } from './fake-lark/lark-ids.js';
import {
  type FakeDocument,
  type FakeLarkChat,
  type FakeLarkMessage,
  type FakeLarkUser,
  type FakeResource,
  type FakeWikiNode,
  type LarkRoute,
  LarkState,
  type RecordedCall,
  type ResourceInput,
} from './fake-lark/lark-state.js';
import { checkContent, type RenderedContent } from './fake-lark/message-content.js';
import type { FakeLarkBot, OpenApiContext } from './fake-lark/open-api-routes.js';
import { FakeLarkWs, type WsAck, type WsClientConfig } from './fake-lark/ws-server.js';

export {
  buildCallbackRequest,
  decryptPayload,
  encryptPayload,
  larkSignature,
  postCallback,
} from './fake-lark/callback-crypto.js';
export { chatRateLimited, internalError, rateLimited } from './fake-lark/failures.js';
export {
  cardActionEvent,
  eventEnvelope,
  messageReceiveEvent,
  postContent,
  textContent,
  urlVerification,
} from './fake-lark/lark-events.js';
export type {
  CallbackRequest,
  CallbackResponse,
  CallbackVariant,
  ClickRecord,
  FakeDocument,
  FakeLarkChat,
  FakeLarkFailure,
  FakeLarkMessage,
  FakeLarkUser,
  FakeResource,
  FakeWikiNode,
  LarkEventEnvelope,
  LarkRoute,
  PostElement,
  RecordedCall,
  ResourceInput,
  WsAck,
  WsClientConfig,
};

export interface FakeLarkLimits {
  /** Text message request body, bytes (Lark: 150 KB). */
  readonly textBytes: number;
  /** Post and card request body, bytes (Lark: 30 KB). */
  readonly cardBytes: number;
  /** Largest downloadable message resource, bytes (Lark: 100 MB). */
  readonly resourceBytes: number;
  /** Largest uploadable image, bytes (Lark: 10 MB). */
  readonly imageBytes: number;
  /** How long a send `uuid` dedupes, ms (Lark: 1 hour). */
  readonly uuidWindowMs: number;
}

export interface FakeLarkOptions {
  /** Must match /^cli_[0-9a-fA-F]{16}$/ for the SDK's WSClient; a random valid one by default. */
  readonly appId?: string;
  readonly appSecret?: string;
  readonly verificationToken?: string;
  /** When set, webhook deliveries are encrypted and signed with it (as Lark does). */
  readonly encryptKey?: string;
  readonly botName?: string;
  /** Lifetime of issued tenant tokens, seconds (Lark: 7200). */
  readonly tokenTtlSeconds?: number;
  /** Long-connection timings handed to the SDK, seconds (Lark: 120 / -1 / 120 / 30). */
  readonly wsClientConfig?: Partial<WsClientConfig>;
  readonly limits?: Partial<FakeLarkLimits>;
}

interface InboundBase {
  readonly from: FakeLarkUser;
  readonly chat: FakeLarkChat;
  /** Mentioned, in order: keys `@_user_1`, `@_user_2`… (write them into the text yourself). */
  readonly mentions?: readonly (FakeLarkUser | 'bot')[];
  readonly replyTo?: FakeLarkMessage;
  readonly eventId?: string;
}

export type InboundMessage = InboundBase &
  (
    | { readonly text: string }
    | { readonly post: { readonly title?: string; readonly content: readonly (readonly PostElement[])[] } }
    | { readonly image: ResourceInput }
    | { readonly file: ResourceInput & { readonly fileName: string } }
  );

export interface CardClick {
  readonly messageId: string;
  readonly operator: FakeLarkUser;
  /** The button's text; or give `value` to send any value (a forged click). */
  readonly label?: string;
  readonly value?: unknown;
  readonly eventId?: string;
}

export interface DeliverOptions {
  readonly variant?: CallbackVariant;
  /** Default: encrypt when the fake has an encrypt key. */
  readonly encrypt?: boolean;
}

export interface FakeLark {
  /** Give the SDK `domain: fake.domain`. */
  readonly domain: string;
  readonly appId: string;
  readonly appSecret: string;
  readonly verificationToken: string;
  readonly encryptKey: string | undefined;
  readonly tenantKey: string;
  readonly bot: FakeLarkBot & { readonly unionId: string };
  readonly app: EventApp;
  readonly calls: RecordedCall[];
  callsOf(route: LarkRoute): RecordedCall[];
  user(name: string, options?: { isBot?: boolean }): FakeLarkUser;
  group(name: string, members: readonly FakeLarkUser[]): FakeLarkChat;
  /** The bot's direct chat with a user. */
  dm(user: FakeLarkUser): FakeLarkChat;
  /** The bot leaves (or is removed from) a chat: sends there fail with 230002. */
  removeBot(chat: FakeLarkChat): void;
  /** The user leaves the bot's availability: sends to them fail with 230013. */
  makeUnavailable(user: FakeLarkUser): void;
  /** Messages in order of creation (inbound and the bot's), optionally of one chat. */
  messages(chatId?: string): FakeLarkMessage[];
  /** Messages the bot sent, optionally in one chat. */
  botMessages(chatId?: string): FakeLarkMessage[];
  message(messageId: string): FakeLarkMessage | undefined;
  /** A user posts a message: it is stored and its `im.message.receive_v1` event returned (not sent). */
  userSends(input: InboundMessage): { message: FakeLarkMessage; event: LarkEventEnvelope };
  /** The `card.action.trigger` event of a click on a card message (not sent). */
  clickEvent(input: CardClick): LarkEventEnvelope;
  /** The request Lark would POST for a payload (encrypted and signed when the fake has an encrypt key). */
  webhookRequest(payload: object, options?: DeliverOptions): CallbackRequest;
  /** POSTs a payload to a webhook URL; a card click's answer is applied like Lark does. */
  deliverWebhook(url: string, payload: object, options?: DeliverOptions): Promise<CallbackResponse>;
  /** Pushes an event over the long connection; a card click's answer is applied like Lark does. */
  pushEvent(payload: LarkEventEnvelope, options?: { fragments?: number }): Promise<WsAck>;
  readonly ws: FakeLarkWs;
  readonly clicks: readonly ClickRecord[];
  /** A resource not tied to any message yet (e.g. an image key the bot may send). */
  addResource(kind: 'image' | 'file', input: ResourceInput): FakeResource;
  addDocument(input: { title: string; content: string; forbidden?: boolean }): FakeDocument;
  addWikiNode(input: { document: FakeDocument }): FakeWikiNode;
  failNext(route: LarkRoute, failure: FakeLarkFailure): void;
  clearFailures(): void;
  /** Every issued tenant token stops working (99991663) until the SDK fetches a new one. */
  revokeTokens(): void;
  readonly tokensIssued: number;
  /** Moves the fake's clock (token expiry, the uuid window, the 14-day edit limit). */
  advanceClock(ms: number): void;
  close(): Promise<void>;
}

const DEFAULT_LIMITS: FakeLarkLimits = {
  textBytes: 150 * 1024,
  cardBytes: 30 * 1024,
  resourceBytes: 100 * 1_048_576,
  imageBytes: 10 * 1_048_576,
  uuidWindowMs: 3_600_000,
};

const DEFAULT_WS: WsClientConfig = {
  PingInterval: 120,
  ReconnectCount: -1,
  ReconnectInterval: 120,
  ReconnectNonce: 30,
};

/**
 * A protocol-level fake of the Feishu/Lark open platform on 127.0.0.1, spoken to by the real
 * `@larksuiteoapi/node-sdk` (`new lark.Client({ appId, appSecret, domain: fake.domain })`, and
 * `new lark.WSClient({ …, domain: fake.domain })` for the long connection). It keeps what each
 * chat shows, records every call, and builds the callbacks Lark would send.
 *
 *     const fake = await startFakeLark({ encryptKey: 'k' });
 *     const ann = fake.user('Ann');
 *     const { event } = fake.userSends({ from: ann, chat: fake.group('team', [ann]),
 *       text: '@_user_1 hi', mentions: ['bot'] });
 *     await fake.deliverWebhook(`${gateway}/feishu/webhook`, event); // or fake.pushEvent(event)
 *     fake.botMessages(chatId); fake.failNext('im.message.create', rateLimited(1));
 */
export async function startFakeLark(options: FakeLarkOptions = {}): Promise<FakeLark> {
  const appId = options.appId ?? larkIds.appId();
  const appSecret = options.appSecret ?? randomBytes(16).toString('base64url');
  const verificationToken = options.verificationToken ?? randomBytes(16).toString('base64url');
  const encryptKey = options.encryptKey;
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const state = new LarkState(larkIds.tenantKey(), options.tokenTtlSeconds ?? 7200, limits.uuidWindowMs);
  const bot = { openId: larkIds.openId(), unionId: larkIds.unionId(), name: options.botName ?? 'Hermes' };
  const app: EventApp = { appId, tenantKey: state.tenantKey, verificationToken };
  const clicks: ClickRecord[] = [];
  let ws: FakeLarkWs | undefined;
  const ctx: OpenApiContext = {
    state,
    appId,
    appSecret,
    bot,
    limits,
    wsEndpoint: (req) => wsServer().endpoint(req),
  };
  const http = await startLarkHttp(ctx, state, () => wsServer());
  ws = new FakeLarkWs({ appId, appSecret }, () => http.origin, { ...DEFAULT_WS, ...options.wsClientConfig });
  function wsServer(): FakeLarkWs {
    if (ws === undefined) throw new Error('long connection not ready');
    return ws;
  }

  function inboundContent(input: InboundMessage): { msgType: string; content: string } {
    if ('text' in input) return { msgType: 'text', content: textContent(input.text) };
    if ('post' in input)
      return { msgType: 'post', content: postContent(input.post.title ?? '', input.post.content) };
    if ('image' in input) {
      const image = state.addResource('image', input.image);
      return { msgType: 'image', content: JSON.stringify({ image_key: image.fileKey }) };
    }
    const file = state.addResource('file', input.file);
    return { msgType: 'file', content: JSON.stringify({ file_key: file.fileKey, file_name: file.fileName }) };
  }

  function rendered(msgType: string, content: string): RenderedContent {
    const check = checkContent(msgType, content, 0, { textBytes: Infinity, cardBytes: Infinity });
    if (!check.ok) throw new Error(`fake-lark: invalid inbound ${msgType} content: ${check.msg}`);
    return check.rendered;
  }

  const webhookRequest = (payload: object, deliver: DeliverOptions = {}): CallbackRequest => {
    const encrypt = deliver.encrypt ?? encryptKey !== undefined;
    if (encrypt && encryptKey === undefined) throw new Error('fake-lark: no encrypt key configured');
    return buildCallbackRequest(payload, {
      ...(encrypt && encryptKey !== undefined ? { encryptKey } : {}),
      ...(deliver.variant !== undefined ? { variant: deliver.variant } : {}),
    });
  };

  return {
    domain: http.origin,
    appId,
    appSecret,
    verificationToken,
    encryptKey,
    tenantKey: state.tenantKey,
    bot,
    app,
    calls: state.calls,
    callsOf: (route) => state.calls.filter((call) => call.route === route),
    user: (name, userOptions = {}) => state.addUser(name, userOptions.isBot ?? false),
    group: (name, members) => state.addChat('group', name, members),
    dm: (user) => state.p2pChat(user),
    removeBot(chat) {
      chat.botIsMember = false;
    },
    makeUnavailable(user) {
      state.unavailableUsers.add(user.openId);
    },
    messages: (chatId) =>
      [...state.messages.values()].filter((m) => chatId === undefined || m.chatId === chatId),
    botMessages: (chatId) =>
      [...state.messages.values()].filter(
        (m) => m.sentBy === 'bot' && (chatId === undefined || m.chatId === chatId),
      ),
    message: (messageId) => state.messages.get(messageId),
    userSends(input) {
      const { msgType, content } = inboundContent(input);
      const message = state.addMessage({
        chat: input.chat,
        sentBy: input.from.openId,
        msgType,
        content,
        rendered: rendered(msgType, content),
        parent: input.replyTo,
      });
      const mentions: EventMention[] = (input.mentions ?? []).map((who, index) => ({
        key: `@_user_${index + 1}`,
        who: who === 'bot' ? { openId: bot.openId, unionId: bot.unionId, name: bot.name } : who,
      }));
      const event = messageReceiveEvent(app, {
        messageId: message.messageId,
        chatId: message.chatId,
        chatType: message.chatType,
        messageType: msgType,
        content,
        sender: input.from,
        mentions,
        createTime: message.createTime,
        ...(message.parentId !== undefined ? { parentId: message.parentId } : {}),
        ...(message.rootId !== undefined ? { rootId: message.rootId } : {}),
        ...(message.threadId !== undefined ? { threadId: message.threadId } : {}),
        ...(input.eventId !== undefined ? { eventId: input.eventId } : {}),
      });
      return { message, event };
    },
    clickEvent(input) {
      const message = state.messages.get(input.messageId);
      if (message === undefined) throw new Error(`fake-lark: no message ${input.messageId}`);
      const value =
        'value' in input ? input.value : message.buttons.find((button) => button.text === input.label)?.value;
      if (value === undefined)
        throw new Error(`fake-lark: message ${input.messageId} has no button ${input.label ?? '?'}`);
      return cardActionEvent(app, {
        operator: input.operator,
        messageId: message.messageId,
        chatId: message.chatId,
        value,
        ...(input.eventId !== undefined ? { eventId: input.eventId } : {}),
      });
    },
    webhookRequest,
    async deliverWebhook(url, payload, deliver = {}) {
      const response = await postCallback(url, webhookRequest(payload, deliver));
      applyCardAnswer(
        state,
        limits,
        clicks,
        payload,
        'webhook',
        response.status === 200 && response.json !== undefined,
        response.json,
      );
      return response;
    },
    async pushEvent(payload, pushOptions = {}) {
      const ack = await wsServer().push(payload, pushOptions);
      applyCardAnswer(
        state,
        limits,
        clicks,
        payload,
        'ws',
        ack.acknowledged && ack.code === 200,
        ack.acknowledged ? ack.data : undefined,
      );
      return ack;
    },
    ws,
    clicks,
    addResource: (kind, input) => state.addResource(kind, input),
    addDocument(input) {
      const document: FakeDocument = {
        documentId: larkIds.documentId(),
        title: input.title,
        content: input.content,
        forbidden: input.forbidden ?? false,
      };
      state.documents.set(document.documentId, document);
      return document;
    },
    addWikiNode(input) {
      const node: FakeWikiNode = {
        nodeToken: larkIds.wikiToken(),
        objToken: input.document.documentId,
        objType: 'docx',
        title: input.document.title,
        spaceId: String(7_000_000_000_000_000_000n + BigInt(state.wikiNodes.size)),
      };
      state.wikiNodes.set(node.nodeToken, node);
      return node;
    },
    failNext: (route, failure) => state.failures.add(route, failure),
    clearFailures: () => state.failures.clear(),
    revokeTokens: () => state.revokeTokens(),
    get tokensIssued() {
      return state.issuedTokens;
    },
    advanceClock: (ms) => state.advanceClock(ms),
    async close() {
      await wsServer().close();
      await http.close();
    },
  };
}
