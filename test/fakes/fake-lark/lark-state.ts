import type { IncomingHttpHeaders } from 'node:http';
import { FailurePlan } from './failures.js';
import { larkIds } from './lark-ids.js';
import type { CardButton, RenderedContent } from './message-content.js';

/** Open API routes the fake serves, by the names `failNext` and `callsOf` use. */
export type LarkRoute =
  | 'auth.tenant_access_token'
  | 'im.message.create'
  | 'im.message.reply'
  | 'im.message.patch'
  | 'im.message.update'
  | 'im.message.get'
  | 'im.message.resource'
  | 'im.image.create'
  | 'im.reaction.create'
  | 'im.reaction.delete'
  | 'bot.info'
  | 'docx.raw_content'
  | 'wiki.get_node'
  | 'ws.endpoint'
  | 'unknown';

export interface RecordedCall {
  readonly route: LarkRoute;
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when empty or not JSON). */
  readonly body: unknown;
  readonly rawBody: Buffer;
  /** HTTP status answered; 0 when the connection was dropped instead. */
  status: number;
  /** The Lark `code` answered (0 on success), when the answer was JSON. */
  code: number | undefined;
}

export interface FakeLarkUser {
  readonly name: string;
  readonly openId: string;
  readonly userId: string;
  readonly unionId: string;
  readonly email: string;
  readonly tenantKey: string;
  /** Another app's bot: its messages arrive with `sender_type: "app"`. */
  readonly isBot: boolean;
}

export interface FakeLarkChat {
  readonly chatId: string;
  readonly type: 'p2p' | 'group';
  readonly name: string;
  readonly members: Set<string>;
  /** False once the bot was removed: sends then fail with 230002. */
  botIsMember: boolean;
}

export interface MessageVersion {
  readonly by: 'create' | 'patch' | 'update' | 'card_callback';
  readonly content: string;
  readonly text: string;
}

export interface FakeLarkMessage {
  readonly messageId: string;
  readonly chatId: string;
  readonly chatType: 'p2p' | 'group';
  msgType: string;
  /** 'bot' for messages the app sent; otherwise the sender's open_id. */
  readonly sentBy: string;
  /** The content JSON string now shown (after patches). */
  content: string;
  /** What the user sees now. */
  text: string;
  buttons: readonly CardButton[];
  updateMulti: boolean;
  resourceKeys: readonly string[];
  readonly parentId: string | undefined;
  readonly rootId: string | undefined;
  readonly threadId: string | undefined;
  readonly uuid: string | undefined;
  readonly createTime: number;
  updateTime: number;
  /** Every content the message had, first the one it was created with. */
  readonly versions: MessageVersion[];
  readonly reactions: Map<string, string>;
  deleted: boolean;
}

export interface FakeResource {
  readonly fileKey: string;
  readonly kind: 'image' | 'file';
  readonly contentType: string;
  readonly fileName: string;
  readonly size: number;
  /** Undefined: `size` zero bytes are streamed without being held in memory. */
  readonly bytes: Buffer | undefined;
  /** Answer without Content-Length (chunked), as a misbehaving proxy might. */
  readonly omitContentLength: boolean;
}

export interface ResourceInput {
  /** The bytes; or omit them and give `size` to stream that many zero bytes. */
  readonly bytes?: Buffer;
  readonly size?: number;
  readonly contentType?: string;
  readonly fileName?: string;
  readonly omitContentLength?: boolean;
}

export interface FakeDocument {
  readonly documentId: string;
  readonly title: string;
  content: string;
  /** The app has no access: code 1770032, HTTP 403. */
  forbidden: boolean;
}

export interface FakeWikiNode {
  readonly nodeToken: string;
  readonly objToken: string;
  readonly objType: string;
  readonly title: string;
  readonly spaceId: string;
}

interface IssuedToken {
  readonly token: string;
  readonly expiresAt: number;
  revoked: boolean;
}

/** Everything the fake platform knows: directory, messages, tokens, files, documents, calls. */
export class LarkState {
  readonly users = new Map<string, FakeLarkUser>();
  readonly chats = new Map<string, FakeLarkChat>();
  readonly messages = new Map<string, FakeLarkMessage>();
  readonly resources = new Map<string, FakeResource>();
  readonly documents = new Map<string, FakeDocument>();
  readonly wikiNodes = new Map<string, FakeWikiNode>();
  readonly calls: RecordedCall[] = [];
  readonly failures = new FailurePlan();
  /** open_ids outside the bot's availability: sends to them fail with 230013. */
  readonly unavailableUsers = new Set<string>();
  readonly #uuids = new Map<string, { messageId: string; at: number }>();
  readonly #tokens = new Map<string, IssuedToken>();
  #clockOffsetMs = 0;

  constructor(
    readonly tenantKey: string,
    readonly tokenTtlSeconds: number,
    readonly uuidWindowMs: number,
  ) {}

  now(): number {
    return Date.now() + this.#clockOffsetMs;
  }

  advanceClock(ms: number): void {
    this.#clockOffsetMs += ms;
  }

  /**
   * Lark's token rule: the current token comes back (with its remaining lifetime) while it has at
   * least 30 minutes left; after that a new one is issued and the old one stays valid until expiry.
   */
  issueToken(): { token: string; expire: number } {
    const now = this.now();
    for (const issued of this.#tokens.values()) {
      if (!issued.revoked && issued.expiresAt - now >= 30 * 60_000) {
        return { token: issued.token, expire: Math.floor((issued.expiresAt - now) / 1000) };
      }
    }
    const token = larkIds.token();
    this.#tokens.set(token, { token, expiresAt: now + this.tokenTtlSeconds * 1000, revoked: false });
    return { token, expire: this.tokenTtlSeconds };
  }

  tokenValid(token: string): boolean {
    const issued = this.#tokens.get(token);
    return issued !== undefined && !issued.revoked && issued.expiresAt > this.now();
  }

  revokeTokens(): void {
    for (const issued of this.#tokens.values()) issued.revoked = true;
  }

  get issuedTokens(): number {
    return this.#tokens.size;
  }

  /** The message an earlier request with this uuid created, within the idempotency window. */
  messageForUuid(uuid: string): FakeLarkMessage | undefined {
    const seen = this.#uuids.get(uuid);
    if (seen === undefined || this.now() - seen.at >= this.uuidWindowMs) return undefined;
    return this.messages.get(seen.messageId);
  }

  addResource(kind: 'image' | 'file', input: ResourceInput): FakeResource {
    const resource: FakeResource = {
      fileKey: kind === 'image' ? larkIds.imageKey() : larkIds.fileKey(),
      kind,
      contentType: input.contentType ?? (kind === 'image' ? 'image/png' : 'application/octet-stream'),
      fileName: input.fileName ?? (kind === 'image' ? 'image.png' : 'file.bin'),
      size: input.bytes?.length ?? input.size ?? 0,
      bytes: input.bytes,
      omitContentLength: input.omitContentLength ?? false,
    };
    this.resources.set(resource.fileKey, resource);
    return resource;
  }

  addUser(name: string, isBot: boolean): FakeLarkUser {
    const user: FakeLarkUser = {
      name,
      openId: larkIds.openId(),
      userId: larkIds.userId(),
      unionId: larkIds.unionId(),
      email: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '.')}@example.test`,
      tenantKey: this.tenantKey,
      isBot,
    };
    this.users.set(user.openId, user);
    return user;
  }

  /** Finds a user by any of Lark's id types. */
  findUser(idType: string, id: string): FakeLarkUser | undefined {
    for (const user of this.users.values()) {
      if (
        (idType === 'open_id' && user.openId === id) ||
        (idType === 'user_id' && user.userId === id) ||
        (idType === 'union_id' && user.unionId === id) ||
        (idType === 'email' && user.email === id)
      ) {
        return user;
      }
    }
    return undefined;
  }

  addChat(type: 'p2p' | 'group', name: string, members: readonly FakeLarkUser[]): FakeLarkChat {
    const chat: FakeLarkChat = {
      chatId: larkIds.chatId(),
      type,
      name,
      members: new Set(members.map((m) => m.openId)),
      botIsMember: true,
    };
    this.chats.set(chat.chatId, chat);
    return chat;
  }

  /** The bot's direct chat with a user, created on first use. */
  p2pChat(user: FakeLarkUser): FakeLarkChat {
    for (const chat of this.chats.values()) {
      if (chat.type === 'p2p' && chat.members.has(user.openId)) return chat;
    }
    return this.addChat('p2p', user.name, [user]);
  }

  addMessage(input: {
    chat: FakeLarkChat;
    sentBy: string;
    msgType: string;
    content: string;
    rendered: RenderedContent;
    parent?: FakeLarkMessage | undefined;
    inThread?: boolean;
    uuid?: string | undefined;
  }): FakeLarkMessage {
    const now = this.now();
    const parent = input.parent;
    const messageId = larkIds.messageId();
    const message: FakeLarkMessage = {
      messageId,
      chatId: input.chat.chatId,
      chatType: input.chat.type,
      msgType: input.msgType,
      sentBy: input.sentBy,
      content: input.content,
      text: input.rendered.text,
      buttons: input.rendered.buttons,
      updateMulti: input.rendered.updateMulti,
      resourceKeys: input.rendered.resourceKeys,
      parentId: parent?.messageId,
      rootId: parent === undefined ? undefined : (parent.rootId ?? parent.messageId),
      threadId:
        parent === undefined
          ? undefined
          : (parent.threadId ?? (input.inThread === true ? `omt_${messageId.slice(3, 19)}` : undefined)),
      uuid: input.uuid,
      createTime: now,
      updateTime: now,
      versions: [{ by: 'create', content: input.content, text: input.rendered.text }],
      reactions: new Map(),
      deleted: false,
    };
    this.messages.set(message.messageId, message);
    if (input.uuid !== undefined) this.#uuids.set(input.uuid, { messageId: message.messageId, at: now });
    return message;
  }

  /** Replaces what a message shows (a card patch, a text edit, a card callback's answer). */
  replaceContent(
    message: FakeLarkMessage,
    by: MessageVersion['by'],
    msgType: string,
    content: string,
    rendered: RenderedContent,
  ): void {
    message.msgType = msgType;
    message.content = content;
    message.text = rendered.text;
    message.buttons = rendered.buttons;
    message.updateMulti = rendered.updateMulti;
    message.resourceKeys = rendered.resourceKeys;
    message.updateTime = this.now();
    message.versions.push({ by, content, text: rendered.text });
  }
}
