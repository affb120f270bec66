/** What the gateway sends from the world's state: READY, the GUILD_CREATEs after it, member chunks. */
import { ApplicationFlags, type GatewayReadyDispatchData } from 'discord.js';
import { guildCreateObject, memberObject, userObject } from './api-objects.js';
import type { DiscordWorld } from './discord-world.js';
import type { GatewaySession } from './fake-gateway.js';

const botGuilds = (world: DiscordWorld) =>
  [...world.guilds.values()].filter((g) => g.members.has(world.bot.id));

export function readyPayload(
  world: DiscordWorld,
  session: GatewaySession,
  resumeUrl: string,
): GatewayReadyDispatchData & Record<string, unknown> {
  return {
    v: 10,
    user: { ...userObject(world.bot), verified: true, mfa_enabled: false },
    // Guilds start unavailable; a GUILD_CREATE for each follows.
    guilds: botGuilds(world).map((g) => ({ id: g.id, unavailable: true })),
    session_id: session.id,
    session_type: 'normal',
    resume_gateway_url: resumeUrl,
    shard: [session.shard[0] ?? 0, session.shard[1] ?? 1],
    application: {
      id: world.bot.id,
      flags: ApplicationFlags.GatewayMessageContentLimited,
      flags_new: String(ApplicationFlags.GatewayMessageContentLimited),
    },
    private_channels: [],
    relationships: [],
    presences: [],
    guild_join_requests: [],
    geo_ordered_rtc_regions: [],
    user_settings: {},
    auth: {},
    _trace: ['["fake-discord-gateway",{"micros":0}]'],
  };
}

export function guildCreatePayloads(world: DiscordWorld, intents: number): unknown[] {
  return botGuilds(world).map((g) => guildCreateObject(world, g, intents));
}

/** GUILD_MEMBERS_CHUNK for op 8 (by user ids, or by username prefix), in one chunk. */
export function membersChunk(world: DiscordWorld, request: Record<string, unknown>): unknown {
  const guild = world.guilds.get(String(request['guild_id']));
  const ids = Array.isArray(request['user_ids']) ? request['user_ids'].map(String) : undefined;
  const query = typeof request['query'] === 'string' ? request['query'].toLowerCase() : '';
  const members = [...(guild?.members.values() ?? [])].filter((m) =>
    ids !== undefined
      ? ids.includes(m.userId)
      : world.user(m.userId).username.toLowerCase().startsWith(query),
  );
  return {
    guild_id: guild?.id,
    members: members.map((m) => memberObject(world, m)),
    chunk_index: 0,
    chunk_count: 1,
    not_found: ids?.filter((id) => !members.some((m) => m.userId === id)) ?? [],
    ...(request['nonce'] !== undefined ? { nonce: request['nonce'] } : {}),
  };
}
