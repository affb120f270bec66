import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import { defineTool } from '../registry/define-tool.js';
import type { CheckResult } from '../registry/tool-types.js';
import { discordConversation } from './discord/discord-conversation.js';
import type { DiscordToolService } from './discord/discord-services.js';

const snowflake = z.string().regex(/^\d{1,20}$/, 'a Discord message id (digits)');
/** Characters of each message's text returned by `read`. */
const READ_CHARS = 1_000;

const parameters = z.object({
  action: z
    .enum(['read', 'react', 'thread', 'pin'])
    .describe(
      'read: the latest messages of this conversation; react: add an emoji reaction to a message; thread: start a thread (on a message, or on its own); pin: pin a message.',
    ),
  message_id: snowflake
    .optional()
    .describe('The message to react to, pin, or start the thread on (ids come from read).'),
  emoji: z.string().trim().min(1).max(32).optional().describe('react: a Unicode emoji such as 👍.'),
  name: z.string().trim().min(1).max(100).optional().describe('thread: the thread name (1-100 characters).'),
  limit: z.number().int().min(1).max(50).default(20).describe('read: how many messages, 1-50 (default 20).'),
});

/** One emoji (with modifiers and joiners), nothing else: no custom `name:id`, no text. */
const UNICODE_EMOJI =
  /^(?=.*(?:\p{Extended_Pictographic}|\p{Regional_Indicator}))(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|\p{Emoji_Modifier}|\uFE0F|\u200D|\u20E3|[#*0-9])+$/u;

function service(services: { discord?: DiscordToolService }): DiscordToolService {
  if (services.discord === undefined)
    throw new HermesError('usage', 'Discord is not configured in this gateway.');
  return services.discord;
}

async function platformCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new HermesError(
      'platform_failed',
      `Discord refused: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new HermesError('usage', `This action needs ${what}.`);
  return value;
}

export const discordTool = defineTool({
  name: 'discord',
  toolset: 'discord',
  emoji: '💬',
  description:
    'Act in the current Discord conversation (the channel, thread or DM this chat happens in; never another one): ' +
    'read its latest messages, react to a message with an emoji, start a thread, or pin a message.',
  parameters,
  checkFn: (services): CheckResult =>
    services.discord === undefined ? { ok: false, reason: 'DISCORD_BOT_TOKEN not set' } : { ok: true },
  handler: async (args, ctx) => {
    const discord = service(ctx.services);
    const { channelId, kind } = discordConversation(ctx.sessionKey, ctx.platform);
    switch (args.action) {
      case 'read': {
        const messages = await platformCall(() => discord.recentMessages(channelId, args.limit));
        return {
          conversation: kind,
          count: messages.length,
          // Oldest first, so it reads like the chat.
          messages: [...messages].reverse().map((message) => ({
            id: message.id,
            author: message.authorName,
            author_id: message.authorId,
            ...(message.authorIsBot ? { bot: true } : {}),
            at: message.createdAt,
            text:
              message.content.length > READ_CHARS
                ? `${message.content.slice(0, READ_CHARS)}…`
                : message.content,
            ...(message.replyTo !== undefined ? { reply_to: message.replyTo } : {}),
            ...(message.attachments > 0 ? { attachments: message.attachments } : {}),
            ...(message.pinned ? { pinned: true } : {}),
          })),
        };
      }
      case 'react': {
        const messageId = need(args.message_id, 'message_id');
        const emoji = need(args.emoji, 'emoji');
        if (!UNICODE_EMOJI.test(emoji))
          throw new HermesError('usage', 'emoji must be one Unicode emoji, such as 👍.');
        await platformCall(() => discord.react(channelId, messageId, emoji));
        return { reacted: emoji, message_id: messageId };
      }
      case 'thread': {
        if (kind !== 'channel')
          throw new HermesError('usage', 'Threads can be started in server channels only.');
        const name = need(args.name, 'name');
        const thread = await platformCall(() => discord.createThread(channelId, name, args.message_id));
        return { thread_id: thread.id, name: thread.name };
      }
      case 'pin': {
        const messageId = need(args.message_id, 'message_id');
        await platformCall(() => discord.pin(channelId, messageId));
        return { pinned: messageId };
      }
    }
  },
});
