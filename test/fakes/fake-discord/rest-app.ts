/** REST routes outside channels: gateway discovery, users, the application, guilds, members, commands. */
import { type APIApplicationCommand, ApplicationCommandType, PermissionFlagsBits } from 'discord.js';
import { channelObject, guildCreateObject, memberObject, roleObject, userObject } from './api-objects.js';
import { emitMember, type FakeCore } from './fake-core.js';
import { fieldOf } from './is-record.js';
import { type CommandBody, commandBody, commandsBulkBody, memberModifyBody } from './request-schemas.js';
import { apiErrors, formError } from './rest-errors.js';
import { ok, parseBody, type Route } from './rest-router.js';

const MAX_TIMEOUT_MS = 28 * 24 * 3600 * 1000;
/** GUILD_CREATE's extra fields, not part of GET /guilds/:id. */
const GATEWAY_ONLY = new Set([
  'channels',
  'threads',
  'members',
  'voice_states',
  'presences',
  'joined_at',
  'large',
  'member_count',
  'unavailable',
  'stage_instances',
  'guild_scheduled_events',
  'soundboard_sounds',
]);

export function appRoutes(
  core: FakeCore,
  gateway: { url: () => string; identifiesLeft: () => number },
): Route[] {
  const { world } = core;
  const guildOf = (id: string | undefined) => {
    const guild = id === undefined ? undefined : world.guilds.get(id);
    if (guild === undefined) throw apiErrors.unknownGuild();
    if (!guild.members.has(world.bot.id)) throw apiErrors.missingAccess();
    return guild;
  };
  const application = () => ({
    id: world.bot.id,
    name: world.bot.username,
    icon: null,
    description: '',
    bot_public: true,
    bot_require_code_grant: false,
    verify_key: '0'.repeat(64),
    flags: 0,
    bot: userObject(world.bot),
  });
  const scope = (params: Readonly<Record<string, string>>) => {
    if (params['application_id'] !== world.bot.id) throw apiErrors.missingAccess();
    const guildId = params['guild_id'];
    if (guildId !== undefined) guildOf(guildId);
    return guildId ?? 'global';
  };
  const toCommand = (
    body: CommandBody,
    key: string,
    previous: APIApplicationCommand | undefined,
  ): APIApplicationCommand =>
    // The options were validated by the command schema; their zod type is looser than the API's.
    ({
      ...body,
      id: previous?.id ?? world.ids.next(),
      application_id: world.bot.id,
      version: world.ids.next(),
      type: body.type ?? ApplicationCommandType.ChatInput,
      name: body.name,
      description: body.description ?? '',
      default_member_permissions: body.default_member_permissions ?? null,
      ...(key === 'global' ? {} : { guild_id: key }),
      nsfw: body.nsfw ?? false,
    }) as APIApplicationCommand;
  const sameCommand = (a: { name: string; type?: number | null }, b: APIApplicationCommand) =>
    a.name === b.name && (a.type ?? 1) === b.type;

  const commandRoutes = (prefix: string): Route[] => [
    {
      method: 'GET',
      path: `${prefix}/commands`,
      auth: true,
      handle: ({ params }) => ok(world.commands.get(scope(params)) ?? []),
    },
    {
      method: 'PUT',
      path: `${prefix}/commands`,
      auth: true,
      handle: ({ params, body }) => {
        const key = scope(params);
        const previous = world.commands.get(key) ?? [];
        // Bulk overwrite keeps the id of a command whose name and type stay.
        const next = parseBody(commandsBulkBody, body).map((c) =>
          toCommand(
            c,
            key,
            previous.find((p) => sameCommand(c, p)),
          ),
        );
        world.commands.set(key, next);
        return ok(next);
      },
    },
    {
      method: 'POST',
      path: `${prefix}/commands`,
      auth: true,
      handle: ({ params, body }) => {
        const key = scope(params);
        const list = world.commands.get(key) ?? [];
        const input = parseBody(commandBody, body);
        const existing = list.find((p) => sameCommand(input, p));
        const command = toCommand(input, key, existing);
        world.commands.set(key, [...list.filter((c) => c !== existing), command]);
        return { status: existing === undefined ? 201 : 200, body: command };
      },
    },
    {
      method: 'GET',
      path: `${prefix}/commands/:command_id`,
      auth: true,
      handle: ({ params }) => {
        const command = (world.commands.get(scope(params)) ?? []).find((c) => c.id === params['command_id']);
        if (command === undefined) throw apiErrors.unknownCommand();
        return ok(command);
      },
    },
    {
      method: 'DELETE',
      path: `${prefix}/commands/:command_id`,
      auth: true,
      handle: ({ params }) => {
        const key = scope(params);
        const list = world.commands.get(key) ?? [];
        if (!list.some((c) => c.id === params['command_id'])) throw apiErrors.unknownCommand();
        world.commands.set(
          key,
          list.filter((c) => c.id !== params['command_id']),
        );
        return ok();
      },
    },
  ];

  return [
    { method: 'GET', path: '/gateway', auth: false, handle: () => ok({ url: gateway.url() }) },
    {
      method: 'GET',
      path: '/gateway/bot',
      auth: true,
      handle: () =>
        ok({
          url: gateway.url(),
          shards: 1,
          session_start_limit: {
            total: 1000,
            remaining: gateway.identifiesLeft(),
            reset_after: 86_400_000,
            max_concurrency: 1,
          },
        }),
    },
    {
      method: 'GET',
      path: '/users/@me',
      auth: true,
      handle: () => ok({ ...userObject(world.bot), verified: true, mfa_enabled: false }),
    },
    {
      method: 'POST',
      path: '/users/@me/channels',
      auth: true,
      handle: ({ body }) => {
        const user = world.users.get(String(fieldOf(body, 'recipient_id')));
        if (user === undefined) throw formError(['recipient_id'], 'BASE_TYPE_REQUIRED', 'Unknown user');
        return ok(channelObject(world, world.dmChannel(user.id)));
      },
    },
    {
      method: 'GET',
      path: '/users/:user_id',
      auth: true,
      handle: ({ params }) => {
        const user = world.users.get(params['user_id'] ?? '');
        if (user === undefined) throw apiErrors.unknownUser();
        return ok(userObject(user));
      },
    },
    { method: 'GET', path: '/applications/@me', auth: true, handle: () => ok(application()) },
    ...commandRoutes('/applications/:application_id'),
    ...commandRoutes('/applications/:application_id/guilds/:guild_id'),
    {
      method: 'GET',
      path: '/guilds/:guild_id',
      auth: true,
      handle: ({ params }) => {
        const full = guildCreateObject(world, guildOf(params['guild_id']), 0);
        return ok(Object.fromEntries(Object.entries(full).filter(([key]) => !GATEWAY_ONLY.has(key))));
      },
    },
    {
      method: 'GET',
      path: '/guilds/:guild_id/channels',
      auth: true,
      handle: ({ params }) =>
        ok(
          guildOf(params['guild_id'])
            .channelIds.map((id) => world.channel(id))
            .filter((c) => !world.isThread(c))
            .map((c) => channelObject(world, c)),
        ),
    },
    {
      method: 'GET',
      path: '/guilds/:guild_id/roles',
      auth: true,
      handle: ({ params }) => ok([...guildOf(params['guild_id']).roles.values()].map(roleObject)),
    },
    {
      method: 'GET',
      path: '/guilds/:guild_id/members/:user_id',
      auth: true,
      handle: ({ params }) => {
        const member = guildOf(params['guild_id']).members.get(params['user_id'] ?? '');
        if (member === undefined) throw apiErrors.unknownMember();
        return ok(memberObject(world, member));
      },
    },
    {
      method: 'PATCH',
      path: '/guilds/:guild_id/members/:user_id',
      auth: true,
      handle: ({ params, body }) => {
        const guild = guildOf(params['guild_id']);
        const member = guild.members.get(params['user_id'] ?? '');
        if (member === undefined) throw apiErrors.unknownMember();
        const changes = parseBody(memberModifyBody, body);
        const botPermissions = world.permissions(guild.id, world.bot.id);
        const need = (bit: bigint) => {
          if ((botPermissions & bit) !== bit) throw apiErrors.missingPermissions();
        };
        if (changes.communication_disabled_until !== undefined) {
          need(PermissionFlagsBits.ModerateMembers);
          // Nobody can time out the owner or an administrator.
          const targetAdmin =
            (world.permissions(guild.id, member.userId) & PermissionFlagsBits.Administrator) !== 0n;
          if (guild.ownerId === member.userId || targetAdmin || member.userId === world.bot.id)
            throw apiErrors.missingPermissions();
          const until = changes.communication_disabled_until;
          if (until != null && Date.parse(until) - Date.now() > MAX_TIMEOUT_MS) {
            throw formError(
              ['communication_disabled_until'],
              'BASE_TYPE_BAD_DATETIME',
              'Timeouts can be at most 28 days in the future.',
            );
          }
          member.communicationDisabledUntil =
            until == null || Date.parse(until) <= Date.now() ? null : new Date(until).toISOString();
        }
        if (changes.nick !== undefined) {
          need(PermissionFlagsBits.ManageNicknames);
          member.nick = changes.nick ?? null;
        }
        if (changes.roles != null) {
          need(PermissionFlagsBits.ManageRoles);
          member.roles = changes.roles.filter((id) => guild.roles.has(id) && id !== guild.id);
        }
        emitMember(core, 'GUILD_MEMBER_UPDATE', member);
        return ok(memberObject(world, member));
      },
    },
  ];
}
