/** Builders of the API objects Discord hands out (users, members, channels, messages, guilds). */
import {
  type APIChannel,
  type APIEmbed,
  type APIGuildMember,
  type APIGuildMemberNoUser,
  type APIMessage,
  type APIMessageTopLevelComponent,
  type APIRole,
  type APIUser,
  type APIUserWithMember,
  ChannelType,
  type GatewayGuildCreateDispatchData,
  GatewayIntentBits,
  type GatewayMessageCreateDispatchData,
  GuildDefaultMessageNotifications,
  GuildExplicitContentFilter,
  type GuildMemberFlags,
  GuildMFALevel,
  GuildNSFWLevel,
  GuildPremiumTier,
  GuildSystemChannelFlags,
  GuildVerificationLevel,
  Locale,
  MessageFlags,
  type RoleFlags,
  type TextChannelType,
} from 'discord.js';
import type {
  DiscordWorld,
  FakeChannel,
  FakeGuild,
  FakeMember,
  FakeMessage,
  FakeRole,
  FakeUser,
} from './discord-world.js';
import { isRecord } from './is-record.js';

export function userObject(user: FakeUser): APIUser {
  return {
    id: user.id,
    username: user.username,
    discriminator: user.bot ? '0001' : '0',
    global_name: user.globalName,
    avatar: null,
    ...(user.bot ? { bot: true } : {}),
  };
}

export function roleObject(role: FakeRole): APIRole {
  return {
    id: role.id,
    name: role.name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    position: role.position,
    permissions: role.permissions.toString(),
    managed: false,
    mentionable: true,
    flags: 0 as RoleFlags,
  };
}

export function memberNoUser(member: FakeMember): APIGuildMemberNoUser {
  return {
    roles: [...member.roles],
    nick: member.nick,
    joined_at: member.joinedAt,
    deaf: false,
    mute: false,
    flags: 0 as GuildMemberFlags,
    pending: false,
    communication_disabled_until: member.communicationDisabledUntil,
  };
}

export function memberObject(world: DiscordWorld, member: FakeMember): APIGuildMember {
  return { ...memberNoUser(member), user: userObject(world.user(member.userId)) };
}

export function channelObject(world: DiscordWorld, channel: FakeChannel): APIChannel {
  const base = { id: channel.id, last_message_id: channel.lastMessageId };
  switch (channel.type) {
    case ChannelType.DM:
      return {
        ...base,
        type: ChannelType.DM,
        name: null,
        recipients: channel.recipientId === undefined ? [] : [userObject(world.user(channel.recipientId))],
      };
    case ChannelType.PublicThread:
    case ChannelType.PrivateThread:
      return {
        ...base,
        type: channel.type,
        name: channel.name,
        guild_id: channel.guildId ?? '',
        parent_id: channel.parentId ?? '',
        owner_id: channel.ownerId ?? world.bot.id,
        rate_limit_per_user: channel.rateLimitPerUser,
        message_count: world.visibleMessages(channel.id).length,
        member_count: 1,
        total_message_sent: world.visibleMessages(channel.id).length,
        thread_metadata: {
          archived: channel.archived,
          auto_archive_duration: channel.autoArchiveDuration === 60 ? 60 : 1440,
          archive_timestamp: new Date().toISOString(),
          locked: false,
          create_timestamp: new Date().toISOString(),
        },
      };
    case ChannelType.GuildCategory:
      return {
        id: channel.id,
        type: ChannelType.GuildCategory,
        name: channel.name,
        guild_id: channel.guildId ?? '',
        position: channel.position,
        permission_overwrites: [],
        parent_id: null,
        nsfw: false,
      };
    default:
      return {
        ...base,
        type:
          channel.type === ChannelType.GuildAnnouncement
            ? ChannelType.GuildAnnouncement
            : ChannelType.GuildText,
        name: channel.name,
        guild_id: channel.guildId ?? '',
        position: channel.position,
        permission_overwrites: [],
        parent_id: channel.parentId ?? null,
        nsfw: false,
        topic: channel.topic,
        rate_limit_per_user: channel.rateLimitPerUser,
      };
  }
}

/**
 * Whether a message's content reaches an app: always with the Message Content intent, otherwise only
 * in DMs, when the app is mentioned, or for the app's own messages (Discord's rule for that intent).
 */
export function contentVisible(
  world: DiscordWorld,
  message: FakeMessage,
  hasContentIntent: boolean,
): boolean {
  return (
    hasContentIntent ||
    message.guildId === undefined ||
    message.authorId === world.bot.id ||
    message.mentions.includes(world.bot.id)
  );
}

export interface MessageView {
  /** Blank content, embeds, attachments and components (no Message Content access). */
  readonly stripContent?: boolean;
  /** Add the gateway's extra fields (guild_id, member, mentions with members). */
  readonly gateway?: boolean;
  /** How deep to embed `referenced_message` (Discord embeds one level). */
  readonly depth?: number;
}

export function messageObject(
  world: DiscordWorld,
  message: FakeMessage,
  view: MessageView = {},
): GatewayMessageCreateDispatchData & APIMessage {
  const strip = view.stripContent === true;
  const guild = message.guildId === undefined ? undefined : world.guilds.get(message.guildId);
  const mentionUser = (id: string): APIUserWithMember => {
    const member = guild?.members.get(id);
    const user = userObject(world.user(id));
    return view.gateway === true && member !== undefined ? { ...user, member: memberNoUser(member) } : user;
  };
  const referenced =
    message.replyTo === undefined ? undefined : world.messages.get(message.replyTo.messageId);
  const thread = message.threadId === undefined ? undefined : world.channels.get(message.threadId);
  const author = guild?.members.get(message.authorId);
  const channel = world.channels.get(message.channelId);
  return {
    id: message.id,
    channel_id: message.channelId,
    author: userObject(world.user(message.authorId)),
    content: strip ? '' : message.content,
    timestamp: new Date(message.createdAt).toISOString(),
    edited_timestamp: message.editedAt === undefined ? null : new Date(message.editedAt).toISOString(),
    tts: message.tts,
    mention_everyone: message.mentionEveryone,
    mentions: message.mentions.filter((id) => world.users.has(id)).map(mentionUser),
    mention_roles: [...message.mentionRoles],
    attachments: strip
      ? []
      : message.attachments.map((a) => ({
          id: a.id,
          filename: a.filename,
          size: a.size,
          url: a.url,
          proxy_url: a.url,
          ...(a.contentType !== undefined ? { content_type: a.contentType } : {}),
        })),
    // Validated against Discord's limits when they came in.
    embeds: strip ? [] : (message.embeds as APIEmbed[]),
    components: strip ? [] : (message.components as APIMessageTopLevelComponent[]),
    pinned: message.pinned,
    type: message.type,
    flags: message.flags | (message.loading ? MessageFlags.Loading : 0),
    ...(message.reactions.size > 0
      ? {
          reactions: [...message.reactions].map(([emoji, users]) => {
            const [name, id] = emoji.includes(':') ? emoji.split(':') : [emoji, undefined];
            return {
              emoji: { id: id ?? null, name: name ?? emoji },
              count: users.size,
              count_details: { burst: 0, normal: users.size },
              me: users.has(world.bot.id),
              me_burst: false,
              burst_colors: [],
            };
          }),
        }
      : {}),
    ...(message.nonce !== undefined ? { nonce: message.nonce } : {}),
    ...(message.interactionId !== undefined
      ? { webhook_id: world.bot.id, application_id: world.bot.id }
      : {}),
    ...(message.replyTo !== undefined
      ? {
          message_reference: {
            type: 0,
            message_id: message.replyTo.messageId,
            channel_id: message.replyTo.channelId,
            ...(message.guildId !== undefined ? { guild_id: message.guildId } : {}),
          },
          referenced_message:
            referenced === undefined || referenced.deleted || (view.depth ?? 0) > 0
              ? null
              : messageObject(world, referenced, { ...view, gateway: false, depth: (view.depth ?? 0) + 1 }),
        }
      : {}),
    ...(thread !== undefined ? { thread: channelObject(world, thread) } : {}),
    ...(view.gateway === true && message.guildId !== undefined ? { guild_id: message.guildId } : {}),
    ...(view.gateway === true && author !== undefined ? { member: memberNoUser(author) } : {}),
    ...(view.gateway === true && channel !== undefined ? textChannelType(channel.type) : {}),
  };
}

function textChannelType(type: ChannelType): { channel_type?: TextChannelType } {
  switch (type) {
    case ChannelType.GuildText:
    case ChannelType.GuildAnnouncement:
    case ChannelType.PublicThread:
    case ChannelType.PrivateThread:
    case ChannelType.DM:
      return { channel_type: type };
    default:
      return {};
  }
}

export function guildCreateObject(
  world: DiscordWorld,
  guild: FakeGuild,
  intents: number,
): GatewayGuildCreateDispatchData {
  const channels = guild.channelIds.map((id) => world.channel(id));
  const withMembers = (intents & GatewayIntentBits.GuildMembers) !== 0;
  const members = [...guild.members.values()].filter((m) => withMembers || m.userId === world.bot.id);
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    owner_id: guild.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: GuildVerificationLevel.None,
    default_message_notifications: GuildDefaultMessageNotifications.OnlyMentions,
    explicit_content_filter: GuildExplicitContentFilter.Disabled,
    roles: [...guild.roles.values()].map(roleObject),
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: GuildMFALevel.None,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: GuildSystemChannelFlags.SuppressJoinNotifications,
    rules_channel_id: null,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: GuildPremiumTier.None,
    premium_subscription_count: 0,
    preferred_locale: Locale.EnglishUS,
    public_updates_channel_id: null,
    max_video_channel_users: 25,
    max_stage_video_channel_users: 50,
    nsfw_level: GuildNSFWLevel.Default,
    premium_progress_bar_enabled: false,
    safety_alerts_channel_id: null,
    hub_type: null,
    incidents_data: null,
    joined_at: guild.createdAt,
    large: false,
    unavailable: false,
    member_count: guild.members.size,
    voice_states: [],
    members: members.map((m) => memberObject(world, m)),
    channels: channels
      .filter((c) => !world.isThread(c))
      .map((c) => {
        const object = channelObject(world, c);
        if (object.type === ChannelType.GuildText || object.type === ChannelType.GuildAnnouncement)
          return object;
        if (object.type === ChannelType.GuildCategory) return object;
        throw new Error(`fake discord: channel ${c.id} cannot be listed in a guild`);
      }),
    threads: channels
      .filter((c) => world.isThread(c) && !c.archived)
      .map((c) => {
        const object = channelObject(world, c);
        if (object.type === ChannelType.PublicThread || object.type === ChannelType.PrivateThread)
          return object;
        throw new Error(`fake discord: channel ${c.id} is not a thread`);
      }),
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

/** The users, roles and @everyone a content string mentions (`<@id>`, `<@!id>`, `<@&id>`, `@everyone`). */
export function parseMentions(content: string): { users: string[]; roles: string[]; everyone: boolean } {
  const users = [...content.matchAll(/<@!?(\d{5,20})>/g)].map((m) => m[1] ?? '');
  const roles = [...content.matchAll(/<@&(\d{5,20})>/g)].map((m) => m[1] ?? '');
  return {
    users: [...new Set(users)],
    roles: [...new Set(roles)],
    everyone: /@(everyone|here)\b/.test(content),
  };
}

export interface FakeButton {
  readonly customId: string | undefined;
  readonly label: string | undefined;
  readonly style: number;
  readonly disabled: boolean;
  readonly url: string | undefined;
}

/** The buttons a message shows, row by row flattened (action rows and v2 containers searched). */
export function buttonsOf(message: Pick<FakeMessage, 'components'>): FakeButton[] {
  const found: FakeButton[] = [];
  const visit = (record: unknown): void => {
    if (!isRecord(record)) return;
    if (record['type'] === 2) {
      found.push({
        customId: typeof record['custom_id'] === 'string' ? record['custom_id'] : undefined,
        label: typeof record['label'] === 'string' ? record['label'] : undefined,
        style: typeof record['style'] === 'number' ? record['style'] : 0,
        disabled: record['disabled'] === true,
        url: typeof record['url'] === 'string' ? record['url'] : undefined,
      });
    }
    for (const key of ['components', 'accessory']) {
      const child = record[key];
      if (Array.isArray(child)) child.forEach(visit);
      else visit(child);
    }
  };
  message.components.forEach(visit);
  return found;
}
