import { type ClientOptions, type GuildMember, Options, type User } from 'discord.js';

/** Users and guild members kept in discord.js's caches (the bot's own always stays). */
export const DISCORD_CACHED_USERS = 1_000;
export const DISCORD_CACHED_MEMBERS_PER_GUILD = 200;

/**
 * What discord.js may keep in memory. Its defaults hold 200 messages per channel and every user
 * ever seen, forever: on a long-running gateway that grows with each channel and each person who
 * writes, at up to 4,000 characters a message. The adapter reads no cached message, reaction or
 * presence (reactions, history and threads go through REST), so those are not kept at all; users
 * and members are kept in bounded numbers, newest first — a message's author and member are read
 * in the same tick the message is built, so they are always still there. Guilds, channels, roles
 * and threads stay as discord.js needs them (limiting those is unsupported); archived threads are
 * swept by discord.js's default sweeper.
 */
export function discordCacheOptions(): Pick<ClientOptions, 'makeCache' | 'sweepers'> {
  const isBot = (user: User) => user.client.user?.id === user.id;
  return {
    makeCache: Options.cacheWithLimits({
      ...Options.DefaultMakeCacheSettings,
      MessageManager: 0,
      ReactionManager: 0,
      ReactionUserManager: 0,
      PresenceManager: 0,
      ThreadMemberManager: 0,
      UserManager: { maxSize: DISCORD_CACHED_USERS, keepOverLimit: isBot },
      GuildMemberManager: {
        maxSize: DISCORD_CACHED_MEMBERS_PER_GUILD,
        keepOverLimit: (member: GuildMember) => isBot(member.user),
      },
    }),
    sweepers: Options.DefaultSweeperSettings,
  };
}
