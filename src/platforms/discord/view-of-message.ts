import { ChannelType, type Message, MessageType } from 'discord.js';
import type { DiscordMessageView } from './translate-message.js';

/** Reads what the adapter needs of a discord.js message (no REST calls; caches only). */
export function viewOfMessage(message: Message, botId: string): DiscordMessageView {
  const channel = message.channel;
  const thread = channel.isThread() ? channel : undefined;
  // Typed as a string, but discord.js copies what the gateway sent, null included.
  const content: unknown = message.content;
  const text = typeof content === 'string' ? content : '';
  // Written mentions only: the ping a reply carries is a reply, not a mention (no auto-thread).
  const mentionsBot =
    new RegExp(`<@!?${botId}>`).test(text) ||
    message.mentions.roles.some((role) => role.tags?.botId === botId);
  const author = message.author;
  return {
    id: message.id,
    channelId: message.channelId,
    guildId: message.guildId ?? undefined,
    parentId: thread?.parentId ?? undefined,
    isThread: thread !== undefined,
    threadOwnerId: thread?.ownerId ?? undefined,
    canHoldThreads: channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement,
    authorId: author.id,
    authorName: author.username,
    authorIsBot: author.bot || message.webhookId !== null,
    isUserMessage: message.type === MessageType.Default || message.type === MessageType.Reply,
    content: text,
    mentionsBot,
    replyToId: message.reference?.messageId ?? undefined,
    repliedToBot: message.reference?.messageId !== undefined && message.mentions.repliedUser?.id === botId,
    roles:
      message.member === null
        ? []
        : [...message.member.roles.cache.keys()].filter((id) => id !== message.guildId),
    attachments: [...message.attachments.values()].map((attachment) => ({
      id: attachment.id,
      url: attachment.url,
      name: attachment.name,
      contentType: attachment.contentType ?? undefined,
      size: attachment.size,
    })),
  };
}
