/**
 * What the REST routes and the user actions share: the world, the gateway, the interactions, and the
 * gateway events Discord sends when the world changes (filtered by each session's intents).
 */
import { ChannelType, GatewayIntentBits } from 'discord.js';
import {
  channelObject,
  contentVisible,
  guildCreateObject,
  memberObject,
  messageObject,
  roleObject,
} from './api-objects.js';
import type {
  DiscordWorld,
  FakeChannel,
  FakeGuild,
  FakeMember,
  FakeMessage,
  FakeRole,
} from './discord-world.js';
import type { EventClock, Stamp } from './event-clock.js';
import type { FakeGateway } from './fake-gateway.js';
import type { FakeInteraction } from './interactions.js';

export interface FakeConfig {
  /** Discord's 3-second window for the first interaction callback. */
  readonly interactionWindowMs: number;
  /** How long an interaction token accepts follow-ups and edits (15 minutes on Discord). */
  readonly interactionTokenLifetimeMs: number;
  /** Privileged intents enabled in the developer portal. */
  readonly privilegedIntents: number;
}

export interface TypingRecord extends Stamp {
  readonly channelId: string;
  readonly userId: string;
}

export interface FakeCore {
  readonly world: DiscordWorld;
  readonly gateway: FakeGateway;
  readonly clock: EventClock;
  readonly config: FakeConfig;
  readonly interactions: Map<string, FakeInteraction>;
  readonly typing: TypingRecord[];
  /** `http://127.0.0.1:PORT` once listening. */
  readonly origin: () => string;
}

const hasContentIntent = (intents: number) => (intents & GatewayIntentBits.MessageContent) !== 0;

/** The REST view of a message: content is blank unless the app may read it (portal setting). */
export function restMessage(core: FakeCore, message: FakeMessage) {
  const allowed = hasContentIntent(core.config.privilegedIntents);
  return messageObject(core.world, message, { stripContent: !contentVisible(core.world, message, allowed) });
}

function messageIntent(message: { guildId: string | undefined }, guild: number, dm: number): number {
  return message.guildId === undefined ? dm : guild;
}

export function emitMessage(
  core: FakeCore,
  t: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE',
  message: FakeMessage,
): void {
  if (message.ephemeralTo !== undefined) return;
  core.gateway.dispatch(
    t,
    messageIntent(message, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages),
    (session) =>
      messageObject(core.world, message, {
        gateway: true,
        stripContent: !contentVisible(core.world, message, hasContentIntent(session.intents)),
      }),
  );
}

export function emitMessageDelete(core: FakeCore, message: FakeMessage): void {
  if (message.ephemeralTo !== undefined) return;
  core.gateway.dispatch(
    'MESSAGE_DELETE',
    messageIntent(message, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages),
    () => ({ id: message.id, channel_id: message.channelId, ...guildField(message.guildId) }),
  );
}

export function emitReaction(
  core: FakeCore,
  t: 'MESSAGE_REACTION_ADD' | 'MESSAGE_REACTION_REMOVE',
  message: FakeMessage,
  userId: string,
  emoji: string,
): void {
  const [name, id] = emoji.includes(':') ? emoji.split(':') : [emoji, undefined];
  const member =
    message.guildId === undefined ? undefined : core.world.guild(message.guildId).members.get(userId);
  core.gateway.dispatch(
    t,
    messageIntent(message, GatewayIntentBits.GuildMessageReactions, GatewayIntentBits.DirectMessageReactions),
    () => ({
      user_id: userId,
      channel_id: message.channelId,
      message_id: message.id,
      emoji: { id: id ?? null, name: name ?? emoji },
      burst: false,
      type: 0,
      ...guildField(message.guildId),
      ...(t === 'MESSAGE_REACTION_ADD'
        ? {
            message_author_id: message.authorId,
            ...(member !== undefined ? { member: memberObject(core.world, member) } : {}),
          }
        : {}),
    }),
  );
}

export function emitTyping(core: FakeCore, channel: FakeChannel, userId: string): void {
  core.gateway.dispatch(
    'TYPING_START',
    messageIntent(channel, GatewayIntentBits.GuildMessageTyping, GatewayIntentBits.DirectMessageTyping),
    () => ({
      channel_id: channel.id,
      user_id: userId,
      timestamp: Math.floor(Date.now() / 1000),
      ...guildField(channel.guildId),
    }),
  );
}

/** CHANNEL_CREATE/UPDATE, or THREAD_CREATE/UPDATE for threads (`newly_created` on a new thread). */
export function emitChannel(core: FakeCore, change: 'create' | 'update', channel: FakeChannel): void {
  if (channel.type === ChannelType.DM) return;
  const thread = core.world.isThread(channel);
  const t = `${thread ? 'THREAD' : 'CHANNEL'}_${change === 'create' ? 'CREATE' : 'UPDATE'}`;
  core.gateway.dispatch(t, GatewayIntentBits.Guilds, () => ({
    ...channelObject(core.world, channel),
    ...(thread && change === 'create' ? { newly_created: true } : {}),
  }));
}

export function emitPins(core: FakeCore, channel: FakeChannel): void {
  const last = channel.pins.at(-1);
  core.gateway.dispatch(
    'CHANNEL_PINS_UPDATE',
    channel.guildId === undefined ? GatewayIntentBits.DirectMessages : GatewayIntentBits.Guilds,
    () => ({
      channel_id: channel.id,
      last_pin_timestamp: last === undefined ? null : new Date().toISOString(),
      ...guildField(channel.guildId),
    }),
  );
}

export function emitMember(
  core: FakeCore,
  t: 'GUILD_MEMBER_ADD' | 'GUILD_MEMBER_UPDATE',
  member: FakeMember,
): void {
  core.gateway.dispatch(t, GatewayIntentBits.GuildMembers, () => ({
    ...memberObject(core.world, member),
    guild_id: member.guildId,
  }));
}

export function emitRole(core: FakeCore, role: FakeRole): void {
  core.gateway.dispatch('GUILD_ROLE_CREATE', GatewayIntentBits.Guilds, () => ({
    guild_id: role.guildId,
    role: roleObject(role),
  }));
}

export function emitGuildCreate(core: FakeCore, guild: FakeGuild): void {
  core.gateway.dispatch('GUILD_CREATE', GatewayIntentBits.Guilds, (session) =>
    guildCreateObject(core.world, guild, session.intents),
  );
}

export function guildField(guildId: string | undefined): { guild_id?: string } {
  return guildId === undefined ? {} : { guild_id: guildId };
}
