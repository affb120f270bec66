/**
 * What the fake Discord knows: users, guilds with roles, members and channels, DM channels, every
 * message (with edits, reactions, pins and threads), interactions and registered commands. Plain
 * data with lookups; the REST routes and the gateway change it and turn it into API objects.
 */
import { type APIApplicationCommand, ChannelType, MessageType, PermissionFlagsBits } from 'discord.js';

const DISCORD_EPOCH = 1_420_070_400_000n;

/** Real-looking snowflakes (time in the top bits), increasing, so Discord's ordering rules hold. */
export class SnowflakeClock {
  #lastMs = 0n;
  #increment = 0n;

  next(): string {
    let ms = BigInt(Date.now());
    if (ms <= this.#lastMs) {
      this.#increment += 1n;
      if (this.#increment > 4095n) {
        this.#lastMs += 1n;
        this.#increment = 0n;
      }
      ms = this.#lastMs;
    } else {
      this.#lastMs = ms;
      this.#increment = 0n;
    }
    return (((ms - DISCORD_EPOCH) << 22n) | (1n << 17n) | this.#increment).toString();
  }
}

/** When a snowflake was made (ms since the Unix epoch). */
export function snowflakeTime(id: string): number {
  return Number((BigInt(id) >> 22n) + DISCORD_EPOCH);
}

export function compareSnowflakes(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export interface FakeUser {
  readonly id: string;
  readonly username: string;
  readonly globalName: string | null;
  readonly bot: boolean;
  /** The user refuses DMs from the bot (REST answers 50007). */
  dmsBlocked: boolean;
}

export interface FakeRole {
  readonly id: string;
  readonly guildId: string;
  readonly name: string;
  readonly permissions: bigint;
  readonly position: number;
}

export interface FakeMember {
  readonly guildId: string;
  readonly userId: string;
  roles: string[];
  nick: string | null;
  readonly joinedAt: string;
  communicationDisabledUntil: string | null;
}

export type FakeChannelKind =
  | 'text'
  | 'announcement'
  | 'category'
  | 'public-thread'
  | 'private-thread'
  | 'dm';

export interface FakeChannel {
  readonly id: string;
  readonly type: ChannelType;
  readonly guildId: string | undefined;
  name: string;
  readonly parentId: string | undefined;
  topic: string | null;
  rateLimitPerUser: number;
  /** DM channels: the other user. */
  readonly recipientId: string | undefined;
  /** Threads: who started it, and the message it was started from. */
  readonly ownerId: string | undefined;
  readonly starterMessageId: string | undefined;
  autoArchiveDuration: number;
  archived: boolean;
  /** The bot lacks permissions here: every write answers 50013 Missing Permissions. */
  botDenied: boolean;
  readonly position: number;
  /** Pinned message ids, oldest pin first. */
  pins: string[];
  lastMessageId: string | null;
}

export interface FakeAttachment {
  readonly id: string;
  readonly filename: string;
  readonly contentType: string | undefined;
  readonly size: number;
  readonly url: string;
  readonly bytes: Buffer;
}

/** A message as the channel shows it now (after edits), plus what only tests need to know. */
export interface FakeMessage {
  readonly id: string;
  readonly channelId: string;
  readonly guildId: string | undefined;
  readonly authorId: string;
  content: string;
  /** As sent (validated against Discord's limits). */
  embeds: unknown[];
  components: unknown[];
  attachments: FakeAttachment[];
  flags: number;
  readonly type: MessageType;
  readonly replyTo: { readonly messageId: string; readonly channelId: string } | undefined;
  /** Users, roles and @everyone the message pinged (after `allowed_mentions`). */
  mentions: string[];
  mentionRoles: string[];
  mentionEveryone: boolean;
  readonly createdAt: number;
  editedAt: number | undefined;
  edits: number;
  /** Emoji (as in the URL: a unicode string or `name:id`) → ids of the users who reacted. */
  readonly reactions: Map<string, Set<string>>;
  pinned: boolean;
  threadId: string | undefined;
  deleted: boolean;
  readonly tts: boolean;
  readonly nonce: string | number | undefined;
  /** Sent as an interaction response or follow-up. */
  readonly interactionId: string | undefined;
  /** Ephemeral: only this user sees it, it never reaches the gateway or GET. */
  readonly ephemeralTo: string | undefined;
  /** A deferred reply still showing "… is thinking". */
  loading: boolean;
}

export interface FakeGuild {
  readonly id: string;
  readonly name: string;
  readonly ownerId: string;
  readonly roles: Map<string, FakeRole>;
  readonly members: Map<string, FakeMember>;
  readonly channelIds: string[];
  readonly createdAt: string;
}

export const ALL_PERMISSIONS = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);

const DEFAULT_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.SendMessagesInThreads |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.AddReactions |
  PermissionFlagsBits.UseApplicationCommands |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.EmbedLinks;

export class DiscordWorld {
  readonly ids = new SnowflakeClock();
  readonly users = new Map<string, FakeUser>();
  readonly guilds = new Map<string, FakeGuild>();
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, FakeMessage>();
  /** Per channel, message ids oldest first. */
  readonly channelMessages = new Map<string, string[]>();
  /** 'global' or a guild id → registered application commands. */
  readonly commands = new Map<string, APIApplicationCommand[]>();
  readonly bot: FakeUser;

  constructor(botName: string) {
    this.bot = this.addUser({ username: botName, bot: true });
  }

  addUser(input: { username: string; globalName?: string; bot?: boolean }): FakeUser {
    const user: FakeUser = {
      id: this.ids.next(),
      username: input.username,
      globalName: input.globalName ?? null,
      bot: input.bot ?? false,
      dmsBlocked: false,
    };
    this.users.set(user.id, user);
    return user;
  }

  addGuild(input: { name: string; ownerId: string }): FakeGuild {
    const id = this.ids.next();
    const guild: FakeGuild = {
      id,
      name: input.name,
      ownerId: input.ownerId,
      roles: new Map(),
      members: new Map(),
      channelIds: [],
      createdAt: new Date().toISOString(),
    };
    // @everyone has the guild's id.
    guild.roles.set(id, {
      id,
      guildId: id,
      name: '@everyone',
      permissions: DEFAULT_PERMISSIONS,
      position: 0,
    });
    this.guilds.set(id, guild);
    this.addMember(id, this.bot.id, []);
    if (input.ownerId !== this.bot.id) this.addMember(id, input.ownerId, []);
    return guild;
  }

  addRole(guildId: string, input: { name: string; permissions?: bigint }): FakeRole {
    const guild = this.guild(guildId);
    const role: FakeRole = {
      id: this.ids.next(),
      guildId,
      name: input.name,
      permissions: input.permissions ?? 0n,
      position: guild.roles.size,
    };
    guild.roles.set(role.id, role);
    return role;
  }

  addMember(guildId: string, userId: string, roles: string[]): FakeMember {
    const member: FakeMember = {
      guildId,
      userId,
      roles: [...roles],
      nick: null,
      joinedAt: new Date().toISOString(),
      communicationDisabledUntil: null,
    };
    this.guild(guildId).members.set(userId, member);
    return member;
  }

  addChannel(
    guildId: string | undefined,
    input: {
      name: string;
      kind?: FakeChannelKind;
      parentId?: string;
      ownerId?: string;
      starterMessageId?: string;
      recipientId?: string;
      autoArchiveDuration?: number;
      id?: string;
    },
  ): FakeChannel {
    const kind = input.kind ?? 'text';
    const type = {
      text: ChannelType.GuildText,
      announcement: ChannelType.GuildAnnouncement,
      category: ChannelType.GuildCategory,
      'public-thread': ChannelType.PublicThread,
      'private-thread': ChannelType.PrivateThread,
      dm: ChannelType.DM,
    }[kind];
    const channel: FakeChannel = {
      id: input.id ?? this.ids.next(),
      type,
      guildId,
      name: input.name,
      parentId: input.parentId,
      topic: null,
      rateLimitPerUser: 0,
      recipientId: input.recipientId,
      ownerId: input.ownerId,
      starterMessageId: input.starterMessageId,
      autoArchiveDuration: input.autoArchiveDuration ?? 1440,
      archived: false,
      botDenied: false,
      position: guildId === undefined ? 0 : this.guild(guildId).channelIds.length,
      pins: [],
      lastMessageId: null,
    };
    this.channels.set(channel.id, channel);
    this.channelMessages.set(channel.id, []);
    if (guildId !== undefined) this.guild(guildId).channelIds.push(channel.id);
    return channel;
  }

  /** The DM channel between the bot and a user, opened on first use. */
  dmChannel(userId: string): FakeChannel {
    for (const channel of this.channels.values()) {
      if (channel.type === ChannelType.DM && channel.recipientId === userId) return channel;
    }
    return this.addChannel(undefined, { name: '', kind: 'dm', recipientId: userId });
  }

  addMessage(message: FakeMessage): FakeMessage {
    this.messages.set(message.id, message);
    this.channelMessages.get(message.channelId)?.push(message.id);
    const channel = this.channels.get(message.channelId);
    if (channel !== undefined && message.ephemeralTo === undefined) channel.lastMessageId = message.id;
    return message;
  }

  guild(guildId: string): FakeGuild {
    const guild = this.guilds.get(guildId);
    if (guild === undefined) throw new Error(`fake discord: no guild ${guildId}`);
    return guild;
  }

  user(userId: string): FakeUser {
    const user = this.users.get(userId);
    if (user === undefined) throw new Error(`fake discord: no user ${userId}`);
    return user;
  }

  channel(channelId: string): FakeChannel {
    const channel = this.channels.get(channelId);
    if (channel === undefined) throw new Error(`fake discord: no channel ${channelId}`);
    return channel;
  }

  isThread(channel: FakeChannel): boolean {
    return channel.type === ChannelType.PublicThread || channel.type === ChannelType.PrivateThread;
  }

  /** A member's guild-wide permissions: the union of its roles, everything for the owner or an admin. */
  permissions(guildId: string, userId: string): bigint {
    const guild = this.guild(guildId);
    if (guild.ownerId === userId) return ALL_PERMISSIONS;
    const member = guild.members.get(userId);
    let permissions = guild.roles.get(guildId)?.permissions ?? 0n;
    for (const roleId of member?.roles ?? []) permissions |= guild.roles.get(roleId)?.permissions ?? 0n;
    return (permissions & PermissionFlagsBits.Administrator) !== 0n ? ALL_PERMISSIONS : permissions;
  }

  /** Messages of a channel, oldest first, as the given user would see them (ephemeral ones only theirs). */
  visibleMessages(channelId: string, viewerId?: string): FakeMessage[] {
    const ids = this.channelMessages.get(channelId) ?? [];
    return ids
      .map((id) => this.messages.get(id))
      .filter(
        (m): m is FakeMessage =>
          m !== undefined && !m.deleted && (m.ephemeralTo === undefined || m.ephemeralTo === viewerId),
      );
  }
}

export function newMessage(
  world: DiscordWorld,
  fields: Partial<FakeMessage> & Pick<FakeMessage, 'channelId' | 'authorId'>,
): FakeMessage {
  const channel = world.channel(fields.channelId);
  return {
    id: fields.id ?? world.ids.next(),
    guildId: channel.guildId,
    content: '',
    embeds: [],
    components: [],
    attachments: [],
    flags: 0,
    type: MessageType.Default,
    replyTo: undefined,
    mentions: [],
    mentionRoles: [],
    mentionEveryone: false,
    createdAt: Date.now(),
    editedAt: undefined,
    edits: 0,
    reactions: new Map(),
    pinned: false,
    threadId: undefined,
    deleted: false,
    tts: false,
    nonce: undefined,
    interactionId: undefined,
    ephemeralTo: undefined,
    loading: false,
    ...fields,
  };
}
