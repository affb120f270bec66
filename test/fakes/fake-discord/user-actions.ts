/**
 * What users do, as the gateway reports it: messages (guild, thread, DM; mentions, replies,
 * attachments), threads, button clicks, select choices and slash commands. A user can only do what
 * Discord's client lets them: click a button the message shows, run a command registered where they
 * are; `force` bypasses the button check to model a forged or stale click.
 */
import {
  type APIApplicationCommandInteractionDataOption,
  type APIApplicationCommandOption,
  type APIInteractionDataResolved,
  ApplicationCommandOptionType,
  ComponentType,
  InteractionContextType,
  MessageType,
} from 'discord.js';
import { buttonsOf, parseMentions, userObject } from './api-objects.js';
import { type FakeChannel, type FakeMessage, newMessage } from './discord-world.js';
import { emitChannel, emitMessage, type FakeCore } from './fake-core.js';
import { commandInteraction, componentInteraction, type FakeInteraction } from './interactions.js';
import { toAttachments } from './message-ops.js';

export interface UserMessageInput {
  readonly authorId: string;
  readonly content?: string;
  /** A message id in the same channel; the reply pings its author unless `pingReplied` is false. */
  readonly replyTo?: string;
  readonly pingReplied?: boolean;
  readonly attachments?: readonly { filename: string; bytes: Buffer; contentType?: string }[];
  readonly embeds?: readonly unknown[];
}

export interface ClickInput {
  readonly messageId: string;
  readonly userId: string;
  /** The button's custom_id, or its label. */
  readonly customId?: string;
  readonly label?: string;
  /** Send the custom_id even if the message shows no such enabled button (a forged or stale click). */
  readonly force?: boolean;
}

export interface CommandInput {
  readonly name: string;
  readonly userId: string;
  /** Guild channel or thread; omit for the user's DM with the bot. */
  readonly channelId?: string;
  readonly subcommand?: string;
  /** Option values by name, checked against the registered command (users/channels/roles by id). */
  readonly options?: Readonly<Record<string, string | number | boolean>>;
}

export function userMessage(core: FakeCore, channel: FakeChannel, input: UserMessageInput): FakeMessage {
  const { world } = core;
  const author = world.user(input.authorId);
  if (author.id === world.bot.id) throw new Error('fake discord: the bot speaks through REST, not as a user');
  if (channel.guildId !== undefined && !world.guild(channel.guildId).members.has(author.id)) {
    throw new Error(`fake discord: ${author.username} is not in guild ${channel.guildId}`);
  }
  const replied = input.replyTo === undefined ? undefined : world.messages.get(input.replyTo);
  if (input.replyTo !== undefined && (replied === undefined || replied.channelId !== channel.id)) {
    throw new Error(`fake discord: no message ${input.replyTo} in channel ${channel.id} to reply to`);
  }
  const content = input.content ?? '';
  const mentions = parseMentions(content);
  const users = mentions.users.filter((id) => world.users.has(id));
  if (replied !== undefined && input.pingReplied !== false && !users.includes(replied.authorId))
    users.push(replied.authorId);
  const message = newMessage(world, {
    channelId: channel.id,
    authorId: author.id,
    content,
    embeds: [...(input.embeds ?? [])],
    attachments: toAttachments(
      core,
      channel.id,
      (input.attachments ?? []).map((a) => ({ field: 'files[0]', ...a, contentType: a.contentType })),
    ),
    type: replied === undefined ? MessageType.Default : MessageType.Reply,
    replyTo: replied === undefined ? undefined : { messageId: replied.id, channelId: channel.id },
    mentions: users,
    mentionRoles: mentions.roles,
    mentionEveryone: mentions.everyone,
  });
  if (world.isThread(channel)) channel.archived = false;
  world.addMessage(message);
  emitMessage(core, 'MESSAGE_CREATE', message);
  return message;
}

export function userThread(
  core: FakeCore,
  parent: FakeChannel,
  input: { authorId: string; name: string; fromMessageId?: string; private?: boolean },
): FakeChannel {
  const { world } = core;
  const starter = input.fromMessageId === undefined ? undefined : world.messages.get(input.fromMessageId);
  if (input.fromMessageId !== undefined && (starter === undefined || starter.channelId !== parent.id)) {
    throw new Error(`fake discord: no message ${input.fromMessageId} in ${parent.id}`);
  }
  if (starter?.threadId !== undefined)
    throw new Error(`fake discord: message ${starter.id} already has a thread`);
  const thread = world.addChannel(parent.guildId, {
    ...(starter !== undefined ? { id: starter.id, starterMessageId: starter.id } : {}),
    name: input.name,
    kind: input.private === true ? 'private-thread' : 'public-thread',
    parentId: parent.id,
    ownerId: input.authorId,
  });
  if (starter !== undefined) starter.threadId = thread.id;
  emitChannel(core, 'create', thread);
  return thread;
}

export function click(core: FakeCore, input: ClickInput): FakeInteraction {
  const message = core.world.messages.get(input.messageId);
  if (message === undefined || message.deleted)
    throw new Error(`fake discord: no message ${input.messageId}`);
  if (message.ephemeralTo !== undefined && message.ephemeralTo !== input.userId) {
    throw new Error(`fake discord: message ${message.id} is ephemeral and not shown to ${input.userId}`);
  }
  const button = buttonsOf(message).find(
    (b) =>
      (input.customId !== undefined && b.customId === input.customId) ||
      (input.label !== undefined && b.label === input.label),
  );
  const customId = button?.customId ?? input.customId;
  if (input.force !== true && (button === undefined || button.disabled || button.customId === undefined)) {
    throw new Error(
      `fake discord: message ${message.id} shows no enabled button ${input.customId ?? input.label ?? '?'}`,
    );
  }
  if (customId === undefined) throw new Error('fake discord: a forced click needs a customId');
  return componentInteraction(core, message, input.userId, { customId });
}

export function choose(
  core: FakeCore,
  input: { messageId: string; userId: string; customId: string; values: string[] },
): FakeInteraction {
  const message = core.world.messages.get(input.messageId);
  if (message === undefined) throw new Error(`fake discord: no message ${input.messageId}`);
  return componentInteraction(core, message, input.userId, {
    customId: input.customId,
    select: { type: ComponentType.StringSelect, values: input.values },
  });
}

export function runCommand(core: FakeCore, input: CommandInput): FakeInteraction {
  const { world } = core;
  const channel =
    input.channelId === undefined ? world.dmChannel(input.userId) : world.channel(input.channelId);
  const scopes = channel.guildId === undefined ? ['global'] : [channel.guildId, 'global'];
  const command = scopes
    .flatMap((key) => world.commands.get(key) ?? [])
    .find((c) => c.name === input.name && c.type === 1 && usableIn(c.contexts, c.dm_permission, channel));
  if (command === undefined)
    throw new Error(`fake discord: /${input.name} is not registered where ${input.userId} is`);
  let defs: readonly APIApplicationCommandOption[] = command.options ?? [];
  let wrap = (
    options: APIApplicationCommandInteractionDataOption[],
  ): APIApplicationCommandInteractionDataOption[] => options;
  if (input.subcommand !== undefined) {
    const sub = defs.find(
      (o) => o.type === ApplicationCommandOptionType.Subcommand && o.name === input.subcommand,
    );
    if (sub === undefined || sub.type !== ApplicationCommandOptionType.Subcommand)
      throw new Error(`fake discord: /${input.name} has no subcommand ${input.subcommand}`);
    defs = sub.options ?? [];
    wrap = (options) => [
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: sub.name,
        options: options.flatMap((o) => ('value' in o ? [o] : [])),
      },
    ];
  }
  const resolved: APIInteractionDataResolved = {};
  const options = Object.entries(input.options ?? {}).map(([name, value]) => {
    const def = defs.find((d) => d.name === name);
    if (def === undefined) throw new Error(`fake discord: /${input.name} has no option ${name}`);
    return optionValue(core, def, value, resolved);
  });
  for (const def of defs) {
    if ('required' in def && def.required === true && !(def.name in (input.options ?? {}))) {
      throw new Error(`fake discord: /${input.name} needs option ${def.name}`);
    }
  }
  return commandInteraction(core, channel, input.userId, {
    id: command.id,
    name: command.name,
    guildId: command.guild_id,
    options: wrap(options),
    resolved: Object.keys(resolved).length > 0 ? resolved : undefined,
  });
}

function usableIn(
  contexts: readonly InteractionContextType[] | null | undefined,
  dmPermission: boolean | undefined,
  channel: FakeChannel,
): boolean {
  if (channel.guildId !== undefined)
    return contexts == null || contexts.includes(InteractionContextType.Guild);
  if (contexts != null) return contexts.includes(InteractionContextType.BotDM);
  return dmPermission !== false;
}

function optionValue(
  core: FakeCore,
  def: APIApplicationCommandOption,
  value: string | number | boolean,
  resolved: APIInteractionDataResolved,
): APIApplicationCommandInteractionDataOption {
  const fail = (why: string): never => {
    throw new Error(`fake discord: option ${def.name}: ${why}`);
  };
  if ('choices' in def && def.choices !== undefined && !def.choices.some((c) => c.value === value))
    fail('not one of its choices');
  switch (def.type) {
    case ApplicationCommandOptionType.String:
      return typeof value === 'string' ? { type: def.type, name: def.name, value } : fail('expects a string');
    case ApplicationCommandOptionType.Integer:
      return Number.isInteger(value) && typeof value === 'number'
        ? { type: def.type, name: def.name, value }
        : fail('expects an integer');
    case ApplicationCommandOptionType.Number:
      return typeof value === 'number' ? { type: def.type, name: def.name, value } : fail('expects a number');
    case ApplicationCommandOptionType.Boolean:
      return typeof value === 'boolean'
        ? { type: def.type, name: def.name, value }
        : fail('expects a boolean');
    case ApplicationCommandOptionType.User: {
      const user = core.world.users.get(String(value)) ?? fail('unknown user');
      resolved.users = { ...resolved.users, [user.id]: userObject(user) };
      return { type: def.type, name: def.name, value: user.id };
    }
    case ApplicationCommandOptionType.Role:
    case ApplicationCommandOptionType.Channel:
    case ApplicationCommandOptionType.Mentionable:
      return { type: def.type, name: def.name, value: String(value) };
    default:
      return fail(`type ${def.type} is not supported by the fake`);
  }
}
