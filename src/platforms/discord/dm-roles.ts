import { type Client, type REST, Routes } from 'discord.js';
import type { Logger } from 'pino';
import { errorMessage } from './discord-errors.js';

/** Milliseconds the roles of a DM writer are remembered. */
const TTL_MS = 60_000;
const MAX_CACHED = 1_000;

/**
 * The allowed roles someone writing a DM holds: a DM carries no roles, so the user is looked up
 * (REST) in each server that defines one of `allowedRoles`. Cached for a minute; a server where
 * they are not a member (or that cannot be reached) adds nothing.
 */
export function createDmRoleLookup(options: {
  readonly rest: REST;
  readonly token: string;
  readonly logger: Logger;
  readonly allowedRoles: ReadonlySet<string>;
  readonly client: () => Client | undefined;
  readonly now: () => number;
}): (userId: string) => Promise<readonly string[]> {
  const { rest, allowedRoles, now } = options;
  const cache = new Map<string, { readonly roles: readonly string[]; readonly at: number }>();
  return async (userId) => {
    const client = options.client();
    if (allowedRoles.size === 0 || client === undefined) return [];
    const cached = cache.get(userId);
    if (cached !== undefined && now() - cached.at < TTL_MS) return cached.roles;
    const guilds = new Set(
      [...allowedRoles].flatMap((role) =>
        client.guilds.cache.filter((g) => g.roles.cache.has(role)).map((g) => g.id),
      ),
    );
    const held: string[] = [];
    for (const guildId of guilds) {
      try {
        const member = (await rest.get(Routes.guildMember(guildId, userId))) as { roles?: unknown };
        if (!Array.isArray(member.roles)) continue;
        for (const role of member.roles)
          if (typeof role === 'string' && allowedRoles.has(role)) held.push(role);
      } catch (error) {
        options.logger.debug(
          { guildId, err: errorMessage(error, options.token) },
          'discord member roles not read',
        );
      }
    }
    cache.delete(userId);
    cache.set(userId, { roles: held, at: now() });
    if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value ?? '');
    return held;
  };
}
