import { z } from 'zod';
import type { ChatRef, InboundAction, InboundCommand, Sender } from '../adapter.js';
import { ARGS_OPTION } from './slash-commands.js';
import { DISCORD_PLATFORM } from './translate-message.js';

const snowflake = z.string().regex(/^\d{1,20}$/);
const user = z.object({ id: snowflake, username: z.string(), bot: z.boolean().optional() });
/** Thread channel types: announcement, public and private threads. */
const THREAD_TYPES = new Set([10, 11, 12]);

const option: z.ZodType<{ name: string; value?: unknown; options?: unknown[] }> = z.lazy(() =>
  z.object({ name: z.string(), value: z.unknown().optional(), options: z.array(option).optional() }),
);

/** The parts of an INTERACTION_CREATE payload the adapter reads (everything else is ignored). */
const interactionSchema = z.object({
  id: snowflake,
  application_id: snowflake,
  type: z.number().int(),
  token: z.string().min(1).max(1000),
  guild_id: snowflake.optional(),
  channel: z.object({ id: snowflake, type: z.number().int(), parent_id: snowflake.nullish() }).optional(),
  channel_id: snowflake.optional(),
  member: z.object({ user, roles: z.array(snowflake) }).optional(),
  user: user.optional(),
  message: z.object({ id: snowflake }).optional(),
  data: z
    .object({
      custom_id: z.string().optional(),
      component_type: z.number().int().optional(),
      name: z.string().optional(),
      type: z.number().int().optional(),
      options: z.array(option).optional(),
    })
    .optional(),
});

export type InteractionPayload = z.output<typeof interactionSchema>;

export interface InteractionSource {
  readonly id: string;
  readonly token: string;
  readonly applicationId: string;
  /** The channel it happened in (a thread's own id). */
  readonly channelId: string;
}

export type InteractionTranslation =
  | { readonly kind: 'action'; readonly event: InboundAction; readonly source: InteractionSource }
  | {
      readonly kind: 'command';
      readonly event: InboundCommand;
      readonly source: InteractionSource;
      readonly lane: string;
    }
  | { readonly kind: 'skip'; readonly reason: string; readonly source?: InteractionSource };

/** Interaction types: 2 application command, 3 message component. */
const APPLICATION_COMMAND = 2;
const MESSAGE_COMPONENT = 3;
const CHAT_INPUT = 1;
const BUTTON = 2;

function argsOf(
  options: readonly { name: string; value?: unknown; options?: unknown[] }[] | undefined,
): string {
  const args = options?.find((o) => o.name === ARGS_OPTION)?.value;
  return typeof args === 'string' ? args.trim() : '';
}

/**
 * A button press or a slash command as the gateway's inbound event. The chat is built the same
 * way as for messages (a thread is the parent channel plus the thread), so a click counts only in
 * the chat and thread its prompt was shown in.
 */
export function translateInteraction(raw: unknown, receivedAt: number): InteractionTranslation {
  const parsed = interactionSchema.safeParse(raw);
  if (!parsed.success) return { kind: 'skip', reason: 'interaction payload not understood' };
  const payload = parsed.data;
  const channelId = payload.channel?.id ?? payload.channel_id;
  if (channelId === undefined) return { kind: 'skip', reason: 'interaction without a channel' };
  const source: InteractionSource = {
    id: payload.id,
    token: payload.token,
    applicationId: payload.application_id,
    channelId,
  };
  const who = payload.member?.user ?? payload.user;
  if (who === undefined) return { kind: 'skip', reason: 'interaction without a user', source };
  const parentId = payload.channel?.parent_id ?? undefined;
  const isThread =
    payload.channel !== undefined && THREAD_TYPES.has(payload.channel.type) && parentId !== undefined;
  const chat: ChatRef =
    payload.guild_id === undefined
      ? { chatId: channelId, chatType: 'dm' }
      : isThread
        ? { chatId: parentId, threadId: channelId, chatType: 'thread' }
        : { chatId: channelId, chatType: 'group' };
  const sender: Sender = {
    userId: who.id,
    ...(who.username !== '' ? { userName: who.username } : {}),
    isBot: who.bot === true,
    ...(payload.member !== undefined && payload.member.roles.length > 0
      ? { roles: [...payload.member.roles] }
      : {}),
  };
  const base = {
    platform: DISCORD_PLATFORM,
    eventId: payload.id,
    chat,
    sender,
    receivedAt,
    platformOptions: { interactionId: payload.id },
  };

  if (payload.type === MESSAGE_COMPONENT) {
    const data = payload.data;
    if (data?.component_type !== BUTTON || data.custom_id === undefined || payload.message === undefined) {
      return { kind: 'skip', reason: 'not a button press', source };
    }
    return {
      kind: 'action',
      source,
      event: { ...base, kind: 'action', messageId: payload.message.id, data: data.custom_id },
    };
  }
  if (payload.type === APPLICATION_COMMAND) {
    const data = payload.data;
    if (data?.name === undefined || (data.type ?? CHAT_INPUT) !== CHAT_INPUT) {
      return { kind: 'skip', reason: 'not a slash command', source };
    }
    return {
      kind: 'command',
      source,
      lane: channelId,
      event: {
        ...base,
        kind: 'command',
        // The interaction id stands for the message: answers "reply" to it through the interaction.
        messageId: payload.id,
        name: data.name.toLowerCase(),
        args: argsOf(data.options),
        addressed: true,
      },
    };
  }
  return { kind: 'skip', reason: `interaction type ${payload.type} not handled`, source };
}
