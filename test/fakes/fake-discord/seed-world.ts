/** The world every fake starts with, and guilds the bot joins with its own role. */
import { PermissionFlagsBits } from 'discord.js';
import type { DiscordWorld, FakeGuild, FakeRole, FakeUser } from './discord-world.js';

/** What the bot's role may do in a seeded guild (enough for every adapter tool). */
export const BOT_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.SendMessagesInThreads |
  PermissionFlagsBits.CreatePublicThreads |
  PermissionFlagsBits.CreatePrivateThreads |
  PermissionFlagsBits.ManageThreads |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.AddReactions |
  PermissionFlagsBits.ManageMessages |
  PermissionFlagsBits.PinMessages |
  PermissionFlagsBits.ManageChannels |
  PermissionFlagsBits.ModerateMembers |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.UseApplicationCommands;

export interface FakeDiscordSeed {
  readonly guildId: string;
  readonly channels: { readonly general: string; readonly random: string; readonly thread: string };
  readonly roles: {
    readonly everyone: string;
    readonly admin: string;
    readonly member: string;
    readonly bot: string;
  };
  /** owner (guild owner, Admin role), alice (Member role), bob (no role), otherBot (a bot user). */
  readonly users: {
    readonly owner: FakeUser;
    readonly alice: FakeUser;
    readonly bob: FakeUser;
    readonly otherBot: FakeUser;
  };
}

/** A guild with the bot in it, holding a role named after the bot with BOT_PERMISSIONS. */
export function addGuildWithBot(
  world: DiscordWorld,
  input: { name: string; ownerId?: string },
): { guild: FakeGuild; botRole: FakeRole } {
  const guild = world.addGuild({ name: input.name, ownerId: input.ownerId ?? world.bot.id });
  const botRole = world.addRole(guild.id, { name: world.bot.username, permissions: BOT_PERMISSIONS });
  guild.members.get(world.bot.id)?.roles.push(botRole.id);
  return { guild, botRole };
}

/** One guild: #general (with a public thread), #random; an owner, a member, a bystander, another bot. */
export function seedWorld(world: DiscordWorld, botRoles: Map<string, FakeRole>): FakeDiscordSeed {
  const owner = world.addUser({ username: 'owner', globalName: 'Owner' });
  const alice = world.addUser({ username: 'alice', globalName: 'Alice' });
  const bob = world.addUser({ username: 'bob', globalName: 'Bob' });
  const otherBot = world.addUser({ username: 'helper-bot', bot: true });
  const { guild, botRole } = addGuildWithBot(world, { name: 'Hermes Test Guild', ownerId: owner.id });
  botRoles.set(guild.id, botRole);
  const admin = world.addRole(guild.id, { name: 'Admin', permissions: PermissionFlagsBits.Administrator });
  const member = world.addRole(guild.id, { name: 'Member' });
  world.addMember(guild.id, alice.id, [member.id]);
  world.addMember(guild.id, bob.id, []);
  world.addMember(guild.id, otherBot.id, []);
  guild.members.get(owner.id)?.roles.push(admin.id);
  const general = world.addChannel(guild.id, { name: 'general' });
  const random = world.addChannel(guild.id, { name: 'random' });
  const thread = world.addChannel(guild.id, {
    name: 'existing-thread',
    kind: 'public-thread',
    parentId: general.id,
    ownerId: owner.id,
  });
  return {
    guildId: guild.id,
    channels: { general: general.id, random: random.id, thread: thread.id },
    roles: { everyone: guild.id, admin: admin.id, member: member.id, bot: botRole.id },
    users: { owner, alice, bob, otherBot },
  };
}
