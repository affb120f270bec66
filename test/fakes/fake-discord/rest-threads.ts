/** REST routes that start threads: from a message (the thread takes its id) or on their own. */
import { ChannelType, PermissionFlagsBits } from 'discord.js';
import { channelObject } from './api-objects.js';
import { emitChannel, type FakeCore } from './fake-core.js';
import { accessibleChannel, findMessage, requireBotPermission } from './message-ops.js';
import { threadBody } from './request-schemas.js';
import { apiErrors } from './rest-errors.js';
import { parseBody, type Route, type RouteContext, type RouteResult } from './rest-router.js';

export function threadRoutes(core: FakeCore): Route[] {
  const { world } = core;
  const start = ({ params, body }: RouteContext, fromMessage: boolean): RouteResult => {
    const channel = accessibleChannel(core, params['channel_id'] ?? '');
    if (channel.type !== ChannelType.GuildText && channel.type !== ChannelType.GuildAnnouncement) {
      throw apiErrors.wrongChannelType();
    }
    const input = parseBody(threadBody, body);
    // From a message: always public. Otherwise API v10 still defaults to private when `type` is left out.
    const isPrivate = !fromMessage && (input.type ?? ChannelType.PrivateThread) === ChannelType.PrivateThread;
    requireBotPermission(
      core,
      channel,
      isPrivate ? PermissionFlagsBits.CreatePrivateThreads : PermissionFlagsBits.CreatePublicThreads,
    );
    const message = fromMessage ? findMessage(core, channel.id, params['message_id'] ?? '') : undefined;
    if (message?.threadId !== undefined) throw apiErrors.threadExists();
    const thread = world.addChannel(channel.guildId, {
      // A thread started from a message has the message's id.
      ...(message !== undefined ? { id: message.id, starterMessageId: message.id } : {}),
      name: input.name,
      kind: isPrivate ? 'private-thread' : 'public-thread',
      parentId: channel.id,
      ownerId: world.bot.id,
      autoArchiveDuration: input.auto_archive_duration ?? 1440,
    });
    thread.rateLimitPerUser = input.rate_limit_per_user ?? 0;
    if (message !== undefined) message.threadId = thread.id;
    emitChannel(core, 'create', thread);
    return { status: 201, body: channelObject(world, thread) };
  };
  return [
    {
      method: 'POST',
      path: '/channels/:channel_id/messages/:message_id/threads',
      auth: true,
      handle: (context) => start(context, true),
    },
    {
      method: 'POST',
      path: '/channels/:channel_id/threads',
      auth: true,
      handle: (context) => start(context, false),
    },
  ];
}
