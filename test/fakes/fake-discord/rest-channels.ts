/** REST routes on channels: messages, typing, reactions, pins, threads, channel settings. */
import { ChannelType, MessageType, PermissionFlagsBits } from 'discord.js';
import { channelObject } from './api-objects.js';
import { compareSnowflakes, type FakeChannel, newMessage } from './discord-world.js';
import {
  emitChannel,
  emitMessage,
  emitMessageDelete,
  emitPins,
  emitReaction,
  emitTyping,
  type FakeCore,
  restMessage,
} from './fake-core.js';
import { fieldOf } from './is-record.js';
import {
  accessibleChannel,
  checkCanSend,
  createBotMessage,
  editMessage,
  findMessage,
  requireBotPermission,
} from './message-ops.js';
import { channelModifyBody } from './request-schemas.js';
import { apiErrors, DiscordApiError, formError } from './rest-errors.js';
import { ok, parseBody, type Route } from './rest-router.js';

const MAX_PINS = 50;
const MAX_REACTIONS = 20;
/** How long Discord remembers a nonce for `enforce_nonce` ("the past few minutes"). */
const NONCE_WINDOW_MS = 5 * 60_000;

export function channelRoutes(core: FakeCore): Route[] {
  const { world } = core;
  const mayPin = (channel: FakeChannel) => {
    // Pin Messages split from Manage Messages in 2025; either one still lets a bot pin.
    try {
      requireBotPermission(core, channel, PermissionFlagsBits.PinMessages);
    } catch {
      requireBotPermission(core, channel, PermissionFlagsBits.ManageMessages);
    }
  };
  const pin = (channelId: string, messageId: string) => {
    const channel = accessibleChannel(core, channelId);
    mayPin(channel);
    const message = findMessage(core, channelId, messageId);
    if (message.pinned) return ok();
    if (channel.pins.length >= MAX_PINS) throw apiErrors.maxPins();
    message.pinned = true;
    channel.pins.push(message.id);
    emitMessage(core, 'MESSAGE_UPDATE', message);
    emitPins(core, channel);
    // Discord posts "… pinned a message to this channel." as a system message.
    const notice = newMessage(world, {
      channelId,
      authorId: world.bot.id,
      type: MessageType.ChannelPinnedMessage,
      replyTo: { messageId: message.id, channelId },
    });
    emitMessage(core, 'MESSAGE_CREATE', world.addMessage(notice));
    return ok();
  };
  const unpin = (channelId: string, messageId: string) => {
    const channel = accessibleChannel(core, channelId);
    mayPin(channel);
    const message = findMessage(core, channelId, messageId);
    if (!message.pinned) return ok();
    message.pinned = false;
    channel.pins = channel.pins.filter((id) => id !== message.id);
    emitMessage(core, 'MESSAGE_UPDATE', message);
    emitPins(core, channel);
    return ok();
  };
  const pinnedMessages = (channelId: string) => {
    const channel = accessibleChannel(core, channelId);
    return [...channel.pins]
      .reverse()
      .map((id) => world.messages.get(id))
      .filter((m) => m !== undefined && !m.deleted);
  };

  return [
    {
      method: 'GET',
      path: '/channels/:channel_id',
      auth: true,
      handle: ({ params }) => ok(channelObject(world, accessibleChannel(core, params['channel_id'] ?? ''))),
    },
    {
      method: 'PATCH',
      path: '/channels/:channel_id',
      auth: true,
      handle: ({ params, body }) => {
        const channel = accessibleChannel(core, params['channel_id'] ?? '');
        const thread = world.isThread(channel);
        if (channel.type === ChannelType.DM) throw apiErrors.wrongChannelType();
        const isOwner = thread && channel.ownerId === world.bot.id;
        if (!isOwner)
          requireBotPermission(
            core,
            channel,
            thread ? PermissionFlagsBits.ManageThreads : PermissionFlagsBits.ManageChannels,
          );
        const changes = parseBody(channelModifyBody, body);
        if (changes.name != null) channel.name = changes.name;
        if (changes.topic !== undefined && !thread) channel.topic = changes.topic;
        if (changes.rate_limit_per_user != null) channel.rateLimitPerUser = changes.rate_limit_per_user;
        if (changes.archived != null && thread) channel.archived = changes.archived;
        emitChannel(core, 'update', channel);
        return ok(channelObject(world, channel));
      },
    },
    {
      method: 'GET',
      path: '/channels/:channel_id/messages/pins',
      auth: true,
      handle: ({ params }) =>
        ok({
          items: pinnedMessages(params['channel_id'] ?? '').map((m) => ({
            pinned_at: new Date(m?.createdAt ?? 0).toISOString(),
            message: m === undefined ? null : restMessage(core, m),
          })),
          has_more: false,
        }),
    },
    {
      method: 'GET',
      path: '/channels/:channel_id/pins',
      auth: true,
      handle: ({ params }) =>
        ok(
          pinnedMessages(params['channel_id'] ?? '').flatMap((m) =>
            m === undefined ? [] : [restMessage(core, m)],
          ),
        ),
    },
    {
      method: 'PUT',
      path: '/channels/:channel_id/messages/pins/:message_id',
      auth: true,
      handle: ({ params }) => pin(params['channel_id'] ?? '', params['message_id'] ?? ''),
    },
    {
      method: 'DELETE',
      path: '/channels/:channel_id/messages/pins/:message_id',
      auth: true,
      handle: ({ params }) => unpin(params['channel_id'] ?? '', params['message_id'] ?? ''),
    },
    {
      method: 'PUT',
      path: '/channels/:channel_id/pins/:message_id',
      auth: true,
      handle: ({ params }) => pin(params['channel_id'] ?? '', params['message_id'] ?? ''),
    },
    {
      method: 'DELETE',
      path: '/channels/:channel_id/pins/:message_id',
      auth: true,
      handle: ({ params }) => unpin(params['channel_id'] ?? '', params['message_id'] ?? ''),
    },
    {
      method: 'GET',
      path: '/channels/:channel_id/messages',
      auth: true,
      handle: ({ params, query }) => {
        const channel = accessibleChannel(core, params['channel_id'] ?? '');
        requireBotPermission(core, channel, PermissionFlagsBits.ReadMessageHistory);
        const limit = Number(query.get('limit') ?? 50);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
          throw formError(['limit'], 'NUMBER_TYPE_MAX', 'int value should be less than or equal to 100.');
        }
        const before = query.get('before');
        const after = query.get('after');
        let messages = world.visibleMessages(channel.id).reverse();
        if (before !== null) messages = messages.filter((m) => compareSnowflakes(m.id, before) < 0);
        if (after !== null)
          messages = messages
            .filter((m) => compareSnowflakes(m.id, after) > 0)
            .reverse()
            .slice(0, limit)
            .reverse();
        return ok(messages.slice(0, limit).map((m) => restMessage(core, m)));
      },
    },
    {
      method: 'POST',
      path: '/channels/:channel_id/messages',
      auth: true,
      handle: ({ params, body, files }) => {
        const channel = accessibleChannel(core, params['channel_id'] ?? '');
        checkCanSend(core, channel);
        // enforce_nonce: a repeat of a recent nonce returns the message it created, nothing new is sent.
        const nonce = fieldOf(body, 'nonce');
        if (
          fieldOf(body, 'enforce_nonce') === true &&
          (typeof nonce === 'string' || typeof nonce === 'number')
        ) {
          const earlier = world
            .visibleMessages(channel.id)
            .find(
              (m) =>
                m.authorId === world.bot.id &&
                m.nonce === nonce &&
                Date.now() - m.createdAt < NONCE_WINDOW_MS,
            );
          if (earlier !== undefined) return ok(restMessage(core, earlier));
        }
        const message = createBotMessage(core, channel, body, files);
        emitMessage(core, 'MESSAGE_CREATE', message);
        return ok(restMessage(core, message));
      },
    },
    {
      method: 'GET',
      path: '/channels/:channel_id/messages/:message_id',
      auth: true,
      handle: ({ params }) => {
        const channel = accessibleChannel(core, params['channel_id'] ?? '');
        return ok(restMessage(core, findMessage(core, channel.id, params['message_id'] ?? '')));
      },
    },
    {
      method: 'PATCH',
      path: '/channels/:channel_id/messages/:message_id',
      auth: true,
      handle: ({ params, body, files }) => {
        const channel = accessibleChannel(core, params['channel_id'] ?? '');
        const message = findMessage(core, channel.id, params['message_id'] ?? '');
        if (message.authorId !== world.bot.id) throw apiErrors.cannotEditOthers();
        editMessage(core, message, body, files);
        emitMessage(core, 'MESSAGE_UPDATE', message);
        return ok(restMessage(core, message));
      },
    },
    {
      method: 'DELETE',
      path: '/channels/:channel_id/messages/:message_id',
      auth: true,
      handle: ({ params }) => {
        const channel = accessibleChannel(core, params['channel_id'] ?? '');
        const message = findMessage(core, channel.id, params['message_id'] ?? '');
        if (message.authorId !== world.bot.id) {
          if (channel.type === ChannelType.DM)
            throw new DiscordApiError(403, 50003, 'Cannot execute action on a DM channel');
          requireBotPermission(core, channel, PermissionFlagsBits.ManageMessages);
        }
        message.deleted = true;
        emitMessageDelete(core, message);
        return ok();
      },
    },
    {
      method: 'POST',
      path: '/channels/:channel_id/typing',
      auth: true,
      handle: ({ params }) => {
        const channel = accessibleChannel(core, params['channel_id'] ?? '');
        checkCanSend(core, channel);
        core.typing.push({ ...core.clock.stamp(), channelId: channel.id, userId: world.bot.id });
        emitTyping(core, channel, world.bot.id);
        return ok();
      },
    },
    {
      method: 'PUT',
      path: '/channels/:channel_id/messages/:message_id/reactions/:emoji/@me',
      auth: true,
      handle: ({ params }) => {
        const channel = accessibleChannel(core, params['channel_id'] ?? '');
        const message = findMessage(core, channel.id, params['message_id'] ?? '');
        const emoji = checkEmoji(params['emoji'] ?? '');
        const users = message.reactions.get(emoji);
        if (users === undefined) {
          requireBotPermission(
            core,
            channel,
            PermissionFlagsBits.AddReactions | PermissionFlagsBits.ReadMessageHistory,
          );
          if (message.reactions.size >= MAX_REACTIONS)
            throw new DiscordApiError(400, 30010, 'Maximum number of reactions reached (20)');
          message.reactions.set(emoji, new Set([world.bot.id]));
        } else if (users.has(world.bot.id)) {
          return ok();
        } else {
          users.add(world.bot.id);
        }
        emitReaction(core, 'MESSAGE_REACTION_ADD', message, world.bot.id, emoji);
        return ok();
      },
    },
    {
      method: 'DELETE',
      path: '/channels/:channel_id/messages/:message_id/reactions/:emoji/@me',
      auth: true,
      handle: ({ params }) => {
        const channel = accessibleChannel(core, params['channel_id'] ?? '');
        const message = findMessage(core, channel.id, params['message_id'] ?? '');
        const emoji = checkEmoji(params['emoji'] ?? '');
        const users = message.reactions.get(emoji);
        if (users?.delete(world.bot.id)) {
          if (users.size === 0) message.reactions.delete(emoji);
          emitReaction(core, 'MESSAGE_REACTION_REMOVE', message, world.bot.id, emoji);
        }
        return ok();
      },
    },
  ];
}

/** A unicode emoji or `name:id`; Discord answers 10014 for anything else (`thumbsup`, `:x:`). */
function checkEmoji(emoji: string): string {
  const custom = /^[\w~]{2,32}:\d{5,20}$/.test(emoji);
  // Custom emoji are not modelled (no guild emoji), so only unicode ones exist.
  if (custom || emoji === '' || /^[\x20-\x7e]*$/.test(emoji)) throw apiErrors.unknownEmoji();
  return emoji;
}
