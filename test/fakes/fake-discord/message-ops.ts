/**
 * Sending and editing messages the way Discord does: access and permission checks, `Invalid Form
 * Body` limits, empty messages refused, replies resolved, mentions filtered by `allowed_mentions`,
 * uploads turned into attachments served by the fake's CDN path.
 */
import { ChannelType, MessageType, PermissionFlagsBits } from 'discord.js';
import { parseMentions } from './api-objects.js';
import { type FakeAttachment, type FakeChannel, type FakeMessage, newMessage } from './discord-world.js';
import type { FakeCore } from './fake-core.js';
import {
  type MessageCreateBody,
  type MessageEditBody,
  messageCreateBody,
  messageEditBody,
} from './request-schemas.js';
import { apiErrors, DiscordApiError, formError } from './rest-errors.js';
import { parseBody, type UploadedFile } from './rest-router.js';

/** The channel, if the bot can see it (404 10003 unknown, 403 50001 no access). */
export function accessibleChannel(core: FakeCore, channelId: string): FakeChannel {
  const channel = core.world.channels.get(channelId);
  if (channel === undefined) throw apiErrors.unknownChannel();
  if (channel.guildId !== undefined && !core.world.guild(channel.guildId).members.has(core.world.bot.id)) {
    throw apiErrors.missingAccess();
  }
  return channel;
}

/** 403 50013 unless the bot holds `permission` in the channel (DMs allow everything a DM allows). */
export function requireBotPermission(core: FakeCore, channel: FakeChannel, permission: bigint): void {
  if (channel.botDenied) throw apiErrors.missingPermissions();
  if (channel.guildId === undefined) return;
  if ((core.world.permissions(channel.guildId, core.world.bot.id) & permission) !== permission) {
    throw apiErrors.missingPermissions();
  }
}

export function sendPermission(core: FakeCore, channel: FakeChannel): bigint {
  return core.world.isThread(channel)
    ? PermissionFlagsBits.SendMessagesInThreads
    : PermissionFlagsBits.SendMessages;
}

export function findMessage(core: FakeCore, channelId: string, messageId: string): FakeMessage {
  const message = core.world.messages.get(messageId);
  if (
    message === undefined ||
    message.deleted ||
    message.channelId !== channelId ||
    message.ephemeralTo !== undefined
  ) {
    throw apiErrors.unknownMessage();
  }
  return message;
}

/** Uploads per message, and bytes per request for a bot in an unboosted guild (10 MiB). */
const MAX_FILES = 10;
const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

export function toAttachments(
  core: FakeCore,
  channelId: string,
  files: readonly UploadedFile[],
): FakeAttachment[] {
  if (files.length > MAX_FILES) {
    throw formError(['attachments'], 'BASE_TYPE_MAX_LENGTH', `Must be ${MAX_FILES} or fewer in length.`);
  }
  if (files.reduce((sum, f) => sum + f.bytes.length, 0) > MAX_UPLOAD_BYTES) {
    throw new DiscordApiError(413, 40005, 'Request entity too large');
  }
  return files.map((file) => {
    const id = core.world.ids.next();
    return {
      id,
      filename: file.filename,
      contentType: file.contentType,
      size: file.bytes.length,
      url: `${core.origin()}/attachments/${channelId}/${id}/${encodeURIComponent(file.filename)}`,
      bytes: file.bytes,
    };
  });
}

interface Mentionable {
  readonly content?: string | null | undefined;
  readonly allowed_mentions?: MessageCreateBody['allowed_mentions'];
}

/** Who a bot message pings: parsed from content, narrowed by `allowed_mentions` (replies: `replied_user`). */
function mentionsOf(body: Mentionable, repliedAuthor: string | undefined) {
  const parsed = parseMentions(body.content ?? '');
  const allowed = body.allowed_mentions;
  if (allowed == null) {
    return {
      users: [...new Set([...parsed.users, ...(repliedAuthor === undefined ? [] : [repliedAuthor])])],
      roles: parsed.roles,
      everyone: parsed.everyone,
    };
  }
  const parse = allowed.parse ?? [];
  const users = parse.includes('users')
    ? parsed.users
    : parsed.users.filter((id) => allowed.users?.includes(id));
  const roles = parse.includes('roles')
    ? parsed.roles
    : parsed.roles.filter((id) => allowed.roles?.includes(id));
  if (repliedAuthor !== undefined && allowed.replied_user === true && !users.includes(repliedAuthor))
    users.push(repliedAuthor);
  return { users, roles, everyone: parse.includes('everyone') && parsed.everyone };
}

export interface BotMessageExtra {
  readonly interactionId?: string;
  readonly ephemeralTo?: string;
  readonly loading?: boolean;
  readonly type?: MessageType;
}

/** A message the bot sends (REST create, interaction response, follow-up), validated as Discord does. */
export function createBotMessage(
  core: FakeCore,
  channel: FakeChannel,
  rawBody: unknown,
  files: readonly UploadedFile[],
  extra: BotMessageExtra = {},
): FakeMessage {
  const body = parseBody(messageCreateBody, rawBody);
  const empty =
    (body.content ?? '') === '' &&
    (body.embeds ?? []).length === 0 &&
    (body.components ?? []).length === 0 &&
    files.length === 0 &&
    (body.sticker_ids ?? []).length === 0 &&
    body.poll == null;
  if (empty && extra.loading !== true) throw apiErrors.emptyMessage();
  let replyTo: FakeMessage | undefined;
  const reference = body.message_reference;
  if (reference != null && (reference.type ?? 0) === 0) {
    const target = core.world.messages.get(reference.message_id);
    const sameChannel =
      target !== undefined && target.channelId === (reference.channel_id ?? channel.id) && !target.deleted;
    if (sameChannel) replyTo = target;
    else if (reference.fail_if_not_exists !== false) {
      throw formError(['message_reference'], 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', 'Unknown message');
    }
  }
  const mentions = mentionsOf(body, replyTo?.authorId);
  const message = newMessage(core.world, {
    channelId: channel.id,
    authorId: core.world.bot.id,
    content: body.content ?? '',
    embeds: body.embeds ?? [],
    components: body.components ?? [],
    attachments: toAttachments(core, channel.id, files),
    flags: body.flags ?? 0,
    type: extra.type ?? (replyTo !== undefined ? MessageType.Reply : MessageType.Default),
    replyTo: replyTo === undefined ? undefined : { messageId: replyTo.id, channelId: replyTo.channelId },
    mentions: mentions.users,
    mentionRoles: mentions.roles,
    mentionEveryone: mentions.everyone,
    tts: body.tts ?? false,
    nonce: body.nonce ?? undefined,
    interactionId: extra.interactionId,
    ephemeralTo: extra.ephemeralTo,
    loading: extra.loading ?? false,
  });
  return core.world.addMessage(message);
}

/** Applies an edit (PATCH message, interaction update/edit): only fields present change. */
export function editMessage(
  core: FakeCore,
  message: FakeMessage,
  rawBody: unknown,
  files: readonly UploadedFile[],
): void {
  const body: MessageEditBody = parseBody(messageEditBody, rawBody);
  const content = body.content !== undefined ? (body.content ?? '') : message.content;
  const embeds = body.embeds !== undefined ? (body.embeds ?? []) : message.embeds;
  const components = body.components !== undefined ? (body.components ?? []) : message.components;
  let attachments = message.attachments;
  if (body.attachments !== undefined || files.length > 0) {
    const keep = new Set((body.attachments ?? []).map((a) => a.id));
    attachments = [
      ...message.attachments.filter((a) => body.attachments === undefined || keep.has(a.id)),
      ...toAttachments(core, message.channelId, files),
    ];
  }
  if (content === '' && embeds.length === 0 && components.length === 0 && attachments.length === 0) {
    throw apiErrors.emptyMessage();
  }
  if (body.content !== undefined || body.allowed_mentions !== undefined) {
    const mentions = mentionsOf({ content, allowed_mentions: body.allowed_mentions }, undefined);
    message.mentions = mentions.users;
    message.mentionRoles = mentions.roles;
    message.mentionEveryone = mentions.everyone;
  }
  Object.assign(message, { content, embeds, components, attachments });
  if (body.flags != null) message.flags = body.flags;
  message.loading = false;
  message.editedAt = Date.now();
  message.edits += 1;
}

/** The bot may send here: permissions, a DM recipient who accepts DMs, an unarchived thread. */
export function checkCanSend(core: FakeCore, channel: FakeChannel): void {
  if (channel.type === ChannelType.GuildCategory) throw apiErrors.wrongChannelType();
  requireBotPermission(core, channel, sendPermission(core, channel));
  if (channel.type === ChannelType.DM && channel.recipientId !== undefined) {
    const recipient = core.world.users.get(channel.recipientId);
    if (recipient === undefined || recipient.dmsBlocked || recipient.bot) throw apiErrors.cannotDmUser();
  }
  // Sending to an archived thread unarchives it, as Discord does for members who may send.
  if (core.world.isThread(channel) && channel.archived) channel.archived = false;
}
