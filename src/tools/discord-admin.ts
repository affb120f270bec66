import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import { defineTool } from '../registry/define-tool.js';
import type { CheckResult } from '../registry/tool-types.js';
import { discordConversation } from './discord/discord-conversation.js';
import type { DiscordToolService } from './discord/discord-services.js';
import { adminFinding, gateDiscordAction } from './discord/gate-discord-action.js';

/** Discord's limits: topic 1024 characters, slowmode 6 hours, timeout 28 days. */
const MAX_SLOWMODE_SECONDS = 21_600;
const MAX_TIMEOUT_MINUTES = 40_320;

const parameters = z.object({
  action: z
    .enum(['set_topic', 'set_slowmode', 'timeout'])
    .describe(
      "set_topic: change this channel's topic; set_slowmode: seconds between a member's messages here (0 turns it off); timeout: mute a member of this server for some minutes (0 lifts it).",
    ),
  topic: z.string().max(1024).optional().describe('set_topic: the new topic (empty clears it).'),
  seconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_SLOWMODE_SECONDS)
    .optional()
    .describe(`set_slowmode: 0-${MAX_SLOWMODE_SECONDS} seconds.`),
  user_id: z
    .string()
    .regex(/^\d{1,20}$/, 'a Discord user id (digits)')
    .optional()
    .describe('timeout: the member to time out.'),
  minutes: z
    .number()
    .int()
    .min(0)
    .max(MAX_TIMEOUT_MINUTES)
    .optional()
    .describe(`timeout: 1-${MAX_TIMEOUT_MINUTES} minutes, or 0 to lift a timeout.`),
  reason: z.string().trim().max(200).default('').describe("Why, for the server's audit log."),
});

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new HermesError('usage', `This action needs ${what}.`);
  return value;
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

function serviceOf(discord: DiscordToolService | undefined): DiscordToolService {
  if (discord === undefined) throw new HermesError('usage', 'Discord is not configured in this gateway.');
  return discord;
}

export const discordAdminTool = defineTool({
  name: 'discord_admin',
  toolset: 'discord_admin',
  emoji: '🛡️',
  description:
    "Moderate the current Discord server (only for the gateway's admins, and only here): set this channel's topic, " +
    'set its slowmode, or time out a member. Every action is shown to a human for approval before it happens.',
  parameters,
  checkFn: (services): CheckResult => {
    if (services.discord === undefined) return { ok: false, reason: 'DISCORD_BOT_TOKEN not set' };
    if (services.approvalGate === undefined) return { ok: false, reason: 'approval gate not configured' };
    return { ok: true };
  },
  handler: async (args, ctx) => {
    const discord = serviceOf(ctx.services.discord);
    const conversation = discordConversation(ctx.sessionKey, ctx.platform);
    if (ctx.userId === undefined || !discord.isAdmin(ctx.userId)) {
      throw new HermesError(
        'admin_only',
        'discord_admin is for the gateway admins only, and the person you are talking to is not one. Do not try to reach the same result another way.',
      );
    }
    if (conversation.kind === 'dm')
      throw new HermesError('usage', 'Server moderation works in server channels only.');
    const channel = await platformCall(() => discord.channelInfo(conversation.channelId));
    const guildId = need(channel.guildId, 'a server channel');
    const gateContext = {
      sessionKey: ctx.sessionKey,
      userId: ctx.userId,
      cwd: ctx.cwd,
      platform: ctx.platform,
      unattended: ctx.unattended,
      backend: 'local' as const,
      signal: ctx.signal,
    };
    const reason = args.reason === '' ? 'requested through the agent' : args.reason;
    const where = `#${channel.name ?? channel.id} (${channel.id}) in server ${guildId}`;

    switch (args.action) {
      case 'set_topic': {
        // Threads have no topic: the channel they belong to does.
        const target = channel.isThread && channel.parentId !== undefined ? channel.parentId : channel.id;
        const topic = need(args.topic, 'topic');
        await gateDiscordAction(
          ctx.services.approvalGate,
          {
            kind: 'discord_admin',
            subject: `discord_admin set_topic ${target}`,
            summary: `discord_admin set_topic of channel ${target} in server ${guildId}\nnew topic: ${JSON.stringify(topic)}\nreason: ${reason}`,
            findings: [adminFinding('change a channel topic')],
          },
          gateContext,
        );
        await platformCall(() => discord.setTopic(target, topic, reason));
        return { done: 'topic set', channel_id: target, topic };
      }
      case 'set_slowmode': {
        const seconds = need(args.seconds, 'seconds');
        await gateDiscordAction(
          ctx.services.approvalGate,
          {
            kind: 'discord_admin',
            subject: `discord_admin set_slowmode ${channel.id}`,
            summary: `discord_admin set_slowmode of ${where} to ${seconds} seconds\nreason: ${reason}`,
            findings: [adminFinding('change slowmode')],
          },
          gateContext,
        );
        await platformCall(() => discord.setSlowmode(channel.id, seconds, reason));
        return { done: seconds === 0 ? 'slowmode off' : 'slowmode set', channel_id: channel.id, seconds };
      }
      case 'timeout': {
        const userId = need(args.user_id, 'user_id');
        const minutes = need(args.minutes, 'minutes');
        await gateDiscordAction(
          ctx.services.approvalGate,
          {
            kind: 'discord_admin',
            subject: `discord_admin timeout ${userId}`,
            summary:
              minutes === 0
                ? `discord_admin lift the timeout of member ${userId} in server ${guildId}\nreason: ${reason}`
                : `discord_admin timeout member ${userId} in server ${guildId} for ${minutes} minutes\nreason: ${reason}`,
            findings: [adminFinding(minutes === 0 ? 'lift a member timeout' : 'time out a member')],
          },
          gateContext,
        );
        // The end of the timeout counts from when it is applied (after the approval).
        const until = minutes === 0 ? undefined : new Date(Date.now() + minutes * 60_000);
        await platformCall(() => discord.timeoutMember(guildId, userId, until, reason));
        return {
          done: minutes === 0 ? 'timeout lifted' : 'member timed out',
          user_id: userId,
          ...(until !== undefined ? { until: until.toISOString() } : {}),
        };
      }
    }
  },
});
