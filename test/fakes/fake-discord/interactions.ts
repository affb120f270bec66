/**
 * Interactions a test triggers (button clicks, select choices, slash commands): the INTERACTION_CREATE
 * payload with a fresh id and token, and the record of every callback the client sent for it.
 */

import { randomBytes } from 'node:crypto';
import {
  type APIApplicationCommandInteractionDataOption,
  type APIChatInputApplicationCommandInteraction,
  type APIInteractionDataResolved,
  type APIInteractionGuildMember,
  type APIMessageComponentInteraction,
  ApplicationCommandType,
  ApplicationIntegrationType,
  ComponentType,
  InteractionContextType,
  InteractionType,
  Locale,
  PermissionFlagsBits,
} from 'discord.js';
import { channelObject, memberNoUser, messageObject, userObject } from './api-objects.js';
import type { FakeChannel, FakeMessage } from './discord-world.js';
import type { Stamp } from './event-clock.js';
import type { FakeCore } from './fake-core.js';

export interface InteractionCallbackRecord extends Stamp {
  /** 4 reply, 5 deferred reply, 6 deferred update, 7 update, 8 autocomplete, 9 modal … */
  readonly type: number;
  readonly data: unknown;
  /** Milliseconds since the interaction was created (Discord allows 3000 for the first callback). */
  readonly elapsedMs: number;
  /** HTTP status the fake answered; 200/204 when accepted. */
  readonly status: number;
  /** Discord's error code when refused (10062 too late or unknown, 40060 already acknowledged). */
  readonly errorCode: number | undefined;
}

export type InteractionKind = 'button' | 'select' | 'command';

export interface FakeInteraction extends Stamp {
  readonly id: string;
  readonly token: string;
  readonly kind: InteractionKind;
  readonly userId: string;
  readonly channelId: string;
  readonly guildId: string | undefined;
  /** The message whose component was used. */
  readonly messageId: string | undefined;
  readonly customId: string | undefined;
  readonly commandName: string | undefined;
  /** Every callback attempt, accepted or refused, in order. */
  readonly callbacks: InteractionCallbackRecord[];
  /** The first accepted callback. */
  acknowledged: InteractionCallbackRecord | undefined;
  /** The message `@original` refers to: the reply (4/5) or, for 6/7, the component's message. */
  originalMessageId: string | undefined;
  readonly followUpIds: string[];
  /** The modal shown (callback type 9). */
  modal: unknown;
  /** The INTERACTION_CREATE payload as dispatched. */
  readonly payload: unknown;
}

/** What an app may do in a DM with a user. */
const DM_APP_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.AddReactions |
  PermissionFlagsBits.UseExternalEmojis;

function actor(core: FakeCore, channel: FakeChannel, userId: string) {
  const user = userObject(core.world.user(userId));
  const guildId = channel.guildId;
  if (guildId === undefined) {
    return {
      user,
      app_permissions: DM_APP_PERMISSIONS.toString(),
      context: InteractionContextType.BotDM,
      authorizing_integration_owners: { [ApplicationIntegrationType.GuildInstall]: '0' },
    };
  }
  const member = core.world.guild(guildId).members.get(userId);
  if (member === undefined)
    throw new Error(`fake discord: user ${userId} is not a member of guild ${guildId}`);
  const interactionMember: APIInteractionGuildMember = {
    ...memberNoUser(member),
    user,
    permissions: core.world.permissions(guildId, userId).toString(),
  };
  return {
    member: interactionMember,
    guild_id: guildId,
    guild: { id: guildId, locale: Locale.EnglishUS, features: [] },
    guild_locale: Locale.EnglishUS,
    app_permissions: core.world.permissions(guildId, core.world.bot.id).toString(),
    context: InteractionContextType.Guild,
    authorizing_integration_owners: { [ApplicationIntegrationType.GuildInstall]: guildId },
  };
}

function record(
  core: FakeCore,
  kind: InteractionKind,
  payload: { id: string; token: string },
  fields: Pick<
    FakeInteraction,
    'userId' | 'channelId' | 'guildId' | 'messageId' | 'customId' | 'commandName'
  >,
): FakeInteraction {
  const interaction: FakeInteraction = {
    ...core.clock.stamp(),
    id: payload.id,
    token: payload.token,
    kind,
    ...fields,
    callbacks: [],
    acknowledged: undefined,
    originalMessageId: undefined,
    followUpIds: [],
    modal: undefined,
    payload,
  };
  core.interactions.set(interaction.id, interaction);
  core.gateway.dispatch('INTERACTION_CREATE', undefined, () => payload);
  return interaction;
}

const newToken = () => `aW50ZXJhY3Rpb246${randomBytes(48).toString('base64url')}`;

/** A click on a button (or a choice in a select menu) of `message`. */
export function componentInteraction(
  core: FakeCore,
  message: FakeMessage,
  userId: string,
  component: { customId: string; select?: { type: ComponentType; values: string[] } },
): FakeInteraction {
  const channel = core.world.channel(message.channelId);
  const data =
    component.select === undefined
      ? { custom_id: component.customId, component_type: ComponentType.Button as const }
      : {
          custom_id: component.customId,
          component_type: ComponentType.StringSelect as const,
          values: component.select.values,
        };
  const payload: APIMessageComponentInteraction = {
    id: core.world.ids.next(),
    application_id: core.world.bot.id,
    type: InteractionType.MessageComponent,
    token: newToken(),
    version: 1,
    data,
    channel_id: channel.id,
    channel: channelObject(core.world, channel),
    message: messageObject(core.world, message),
    locale: Locale.EnglishUS,
    entitlements: [],
    attachment_size_limit: 10_485_760,
    ...actor(core, channel, userId),
  };
  return record(core, component.select === undefined ? 'button' : 'select', payload, {
    userId,
    channelId: channel.id,
    guildId: channel.guildId,
    messageId: message.id,
    customId: component.customId,
    commandName: undefined,
  });
}

export function commandInteraction(
  core: FakeCore,
  channel: FakeChannel,
  userId: string,
  command: {
    id: string;
    name: string;
    guildId: string | undefined;
    options: APIApplicationCommandInteractionDataOption[];
    resolved: APIInteractionDataResolved | undefined;
  },
): FakeInteraction {
  const payload: APIChatInputApplicationCommandInteraction = {
    id: core.world.ids.next(),
    application_id: core.world.bot.id,
    type: InteractionType.ApplicationCommand,
    token: newToken(),
    version: 1,
    data: {
      id: command.id,
      name: command.name,
      type: ApplicationCommandType.ChatInput,
      options: command.options,
      ...(command.resolved !== undefined ? { resolved: command.resolved } : {}),
      ...(command.guildId !== undefined ? { guild_id: command.guildId } : {}),
    },
    channel_id: channel.id,
    channel: channelObject(core.world, channel),
    locale: Locale.EnglishUS,
    entitlements: [],
    attachment_size_limit: 10_485_760,
    ...actor(core, channel, userId),
  };
  return record(core, 'command', payload, {
    userId,
    channelId: channel.id,
    guildId: channel.guildId,
    messageId: undefined,
    customId: undefined,
    commandName: command.name,
  });
}
