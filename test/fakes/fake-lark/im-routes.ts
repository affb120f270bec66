import {
  type ApiAnswer,
  type ApiRequest,
  fieldInvalid,
  isRecord,
  larkError,
  ok,
  stringField,
} from './api-answer.js';
import { larkIds } from './lark-ids.js';
import type { FakeLarkChat, FakeLarkMessage, FakeResource, LarkState } from './lark-state.js';
import { type ContentLimits, checkContent } from './message-content.js';
import { parseMultipart } from './multipart.js';

/** What the IM routes need besides the state. */
export interface ImContext {
  readonly state: LarkState;
  readonly appId: string;
  readonly limits: ContentLimits & {
    /** Largest resource `GET …/resources/:file_key` serves (Lark: 100 MB). */
    readonly resourceBytes: number;
    /** Largest image `POST /im/v1/images` accepts (Lark: 10 MB). */
    readonly imageBytes: number;
  };
}

const FOURTEEN_DAYS_MS = 14 * 24 * 3_600_000;
const RECEIVE_ID_TYPES = new Set(['chat_id', 'open_id', 'user_id', 'union_id', 'email']);

const invalid = (ext: string): ApiAnswer =>
  larkError(400, 230001, `Your request contains an invalid request parameter, ext=${ext}`);
const recalled = (): ApiAnswer => larkError(400, 230011, 'The message is recalled.');
const notInGroup = (): ApiAnswer => larkError(400, 230002, 'The bot can not be outside the group.');
const notSender = (): ApiAnswer => larkError(400, 230012, 'Bot is NOT the sender of the message.');

/** The message as the Open API returns it (create, reply, update, get). */
export function messageObject(ctx: ImContext, message: FakeLarkMessage): Record<string, unknown> {
  const bot = message.sentBy === 'bot';
  return {
    message_id: message.messageId,
    ...(message.rootId !== undefined ? { root_id: message.rootId } : {}),
    ...(message.parentId !== undefined ? { parent_id: message.parentId } : {}),
    ...(message.threadId !== undefined ? { thread_id: message.threadId } : {}),
    msg_type: message.msgType,
    create_time: String(message.createTime),
    update_time: String(message.updateTime),
    deleted: message.deleted,
    updated: message.versions.length > 1,
    chat_id: message.chatId,
    sender: {
      id: bot ? ctx.appId : message.sentBy,
      id_type: bot ? 'app_id' : 'open_id',
      sender_type: bot ? 'app' : 'user',
      tenant_key: ctx.state.tenantKey,
    },
    body: { content: message.content },
  };
}

function uuidOf(body: unknown): string | ApiAnswer | undefined {
  if (!isRecord(body) || body['uuid'] === undefined) return undefined;
  const uuid = body['uuid'];
  if (typeof uuid !== 'string' || uuid.length > 50) return fieldInvalid('uuid: max length is 50');
  return uuid === '' ? undefined : uuid;
}

function resourcesKnown(ctx: ImContext, keys: readonly string[]): boolean {
  return keys.every((key) => ctx.state.resources.has(key));
}

/** Validates content and stores the bot's message: the shared tail of create and reply. */
function storeBotMessage(
  ctx: ImContext,
  req: ApiRequest,
  chat: FakeLarkChat,
  uuid: string | undefined,
  parent?: FakeLarkMessage,
): ApiAnswer {
  if (!chat.botIsMember) return notInGroup();
  const msgType = stringField(req.body, 'msg_type');
  const content = stringField(req.body, 'content');
  const check = checkContent(msgType, content, req.rawBody.length, ctx.limits);
  if (!check.ok) return larkError(400, check.code, check.msg);
  if (!resourcesKnown(ctx, check.rendered.resourceKeys)) return invalid('invalid image_key or file_key');
  const message = ctx.state.addMessage({
    chat,
    sentBy: 'bot',
    msgType: msgType ?? '',
    content: content ?? '',
    rendered: check.rendered,
    parent,
    inThread: isRecord(req.body) && req.body['reply_in_thread'] === true,
    uuid,
  });
  return ok(messageObject(ctx, message));
}

export function createMessage(ctx: ImContext, req: ApiRequest): ApiAnswer {
  const idType = req.query.get('receive_id_type') ?? '';
  if (!RECEIVE_ID_TYPES.has(idType)) return fieldInvalid('receive_id_type');
  const uuid = uuidOf(req.body);
  if (typeof uuid === 'object') return uuid;
  const earlier = uuid === undefined ? undefined : ctx.state.messageForUuid(uuid);
  if (earlier !== undefined) return ok(messageObject(ctx, earlier));
  const receiveId = stringField(req.body, 'receive_id');
  if (receiveId === undefined || receiveId === '') return fieldInvalid('receive_id is required');
  let chat: FakeLarkChat | undefined;
  if (idType === 'chat_id') {
    chat = ctx.state.chats.get(receiveId);
    if (chat === undefined) return invalid('invalid receive_id');
  } else {
    const user = ctx.state.findUser(idType, receiveId);
    if (user === undefined) return invalid('invalid receive_id');
    if (ctx.state.unavailableUsers.has(user.openId)) {
      return larkError(400, 230013, 'Bot has NO availability to this user.');
    }
    chat = ctx.state.p2pChat(user);
  }
  return storeBotMessage(ctx, req, chat, uuid);
}

function existing(ctx: ImContext, messageId: string): FakeLarkMessage | ApiAnswer {
  const message = ctx.state.messages.get(messageId);
  if (message === undefined) return invalid('invalid message_id');
  if (message.deleted) return recalled();
  return message;
}

export function replyMessage(ctx: ImContext, req: ApiRequest, messageId: string): ApiAnswer {
  const uuid = uuidOf(req.body);
  if (typeof uuid === 'object') return uuid;
  const earlier = uuid === undefined ? undefined : ctx.state.messageForUuid(uuid);
  if (earlier !== undefined) return ok(messageObject(ctx, earlier));
  const parent = existing(ctx, messageId);
  if ('kind' in parent) return parent;
  const chat = ctx.state.chats.get(parent.chatId);
  if (chat === undefined) return invalid('invalid message_id');
  return storeBotMessage(ctx, req, chat, uuid, parent);
}

/** PATCH: replaces a shared card the bot sent (only interactive messages, within 14 days). */
export function patchMessage(ctx: ImContext, req: ApiRequest, messageId: string): ApiAnswer {
  const message = existing(ctx, messageId);
  if ('kind' in message) return message;
  if (message.sentBy !== 'bot') return notSender();
  if (message.msgType !== 'interactive') return invalid('This message is NOT a card');
  if (ctx.state.now() - message.createTime > FOURTEEN_DAYS_MS) {
    return larkError(400, 230031, 'Message can only be modified within 14 days after sending.');
  }
  const content = stringField(req.body, 'content');
  const check = checkContent('interactive', content, req.rawBody.length, ctx.limits);
  if (!check.ok) return larkError(400, check.code, check.msg);
  if (!message.updateMulti || !check.rendered.updateMulti) {
    return invalid('only shared cards can be updated: declare config.update_multi=true before and after');
  }
  ctx.state.replaceContent(message, 'patch', 'interactive', content ?? '', check.rendered);
  return ok({});
}

/** PUT: edits a text or post message the bot sent; cards must be patched instead. */
export function updateMessage(ctx: ImContext, req: ApiRequest, messageId: string): ApiAnswer {
  const message = existing(ctx, messageId);
  if ('kind' in message) return message;
  if (message.sentBy !== 'bot') return notSender();
  const msgType = stringField(req.body, 'msg_type');
  const editable = (type: string | undefined) => type === 'text' || type === 'post';
  if (!editable(message.msgType) || !editable(msgType)) return invalid('invalid msg_type.');
  const content = stringField(req.body, 'content');
  const check = checkContent(msgType, content, req.rawBody.length, ctx.limits);
  if (!check.ok) return larkError(400, check.code, check.msg);
  ctx.state.replaceContent(message, 'update', msgType ?? 'text', content ?? '', check.rendered);
  return ok(messageObject(ctx, message));
}

export function getMessage(ctx: ImContext, messageId: string): ApiAnswer {
  const message = ctx.state.messages.get(messageId);
  if (message === undefined) return invalid('invalid message_id');
  return ok({ items: [messageObject(ctx, message)] });
}

/** GET …/resources/:file_key?type=image|file: the bytes of a resource the message carries. */
export function getResource(ctx: ImContext, req: ApiRequest, messageId: string, fileKey: string): ApiAnswer {
  const type = req.query.get('type');
  const message = ctx.state.messages.get(messageId);
  const resource = ctx.state.resources.get(fileKey);
  if (type !== 'image' && type !== 'file') return larkError(400, 234001, 'Invalid request param.');
  if (message === undefined || resource === undefined || !message.resourceKeys.includes(fileKey)) {
    return larkError(400, 234003, 'File not in msg.');
  }
  if ((resource.kind === 'image') !== (type === 'image'))
    return larkError(400, 234001, 'Invalid request param.');
  if (ctx.state.chats.get(message.chatId)?.botIsMember === false) {
    return larkError(400, 234004, 'App not in chat.');
  }
  if (resource.size > ctx.limits.resourceBytes) {
    return larkError(400, 234037, 'Downloaded file size exceeds limit.');
  }
  return { kind: 'binary', resource };
}

/** POST /im/v1/images (multipart: image_type, image): uploads an image for sending. */
export function uploadImage(ctx: ImContext, req: ApiRequest): ApiAnswer {
  const parts = parseMultipart(String(req.headers['content-type'] ?? ''), req.rawBody);
  if (parts === undefined) return fieldInvalid('multipart body expected');
  const imageType = parts.find((part) => part.name === 'image_type')?.data.toString('utf8');
  const image = parts.find((part) => part.name === 'image');
  if ((imageType !== 'message' && imageType !== 'avatar') || image === undefined || image.data.length === 0) {
    return fieldInvalid('image_type and image are required');
  }
  if (image.data.length > ctx.limits.imageBytes)
    return larkError(400, 234006, 'The file size exceeds the limit.');
  const resource: FakeResource = {
    fileKey: larkIds.imageKey(),
    kind: 'image',
    contentType:
      image.contentType === undefined || image.contentType === 'application/octet-stream'
        ? 'image/png'
        : image.contentType,
    fileName: image.fileName ?? 'image',
    size: image.data.length,
    bytes: Buffer.from(image.data),
    omitContentLength: false,
  };
  ctx.state.resources.set(resource.fileKey, resource);
  return ok({ image_key: resource.fileKey });
}

export function addReaction(ctx: ImContext, req: ApiRequest, messageId: string): ApiAnswer {
  const message = existing(ctx, messageId);
  if ('kind' in message) return message;
  const type = isRecord(req.body) ? req.body['reaction_type'] : undefined;
  const emoji = stringField(type, 'emoji_type');
  if (emoji === undefined || emoji === '') return fieldInvalid('reaction_type.emoji_type is required');
  const reactionId = larkIds.reactionId();
  message.reactions.set(reactionId, emoji);
  return ok(reactionObject(ctx, reactionId, emoji));
}

export function deleteReaction(ctx: ImContext, messageId: string, reactionId: string): ApiAnswer {
  const message = existing(ctx, messageId);
  if ('kind' in message) return message;
  const emoji = message.reactions.get(reactionId);
  if (emoji === undefined) return larkError(400, 231003, 'The reaction does not exist.');
  message.reactions.delete(reactionId);
  return ok(reactionObject(ctx, reactionId, emoji));
}

function reactionObject(ctx: ImContext, reactionId: string, emoji: string): Record<string, unknown> {
  return {
    reaction_id: reactionId,
    operator: { operator_id: ctx.appId, operator_type: 'app' },
    action_time: String(ctx.state.now()),
    reaction_type: { emoji_type: emoji },
  };
}
