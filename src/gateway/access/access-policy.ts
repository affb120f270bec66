import type { Config } from '../../config/config-schema.js';

/** The parts of the configuration that decide who may talk. */
export type AccessConfig = Pick<Config, 'gateway' | 'platforms'>;

export type UnknownUsersMode = 'auto' | 'pair' | 'ignore';

/** Who may talk on one platform, resolved from the platform's section and the gateway lists. */
export interface PlatformAccessPolicy {
  readonly platform: string;
  readonly allowAll: boolean;
  /** Allowed user ids: the platform list plus gateway entries that apply to this platform. */
  readonly allowedUsers: ReadonlySet<string>;
  readonly adminUsers: ReadonlySet<string>;
  /** Role ids whose members are allowed (`platforms.discord.allowed_roles`); empty elsewhere. */
  readonly allowedRoles: ReadonlySet<string>;
  /** True when any allowlist entry (user or role) applies to this platform (admins do not count). */
  readonly hasAllowlist: boolean;
  readonly unknownUsers: UnknownUsersMode;
  /** Whether an unknown user in a DM is offered a pairing code. */
  readonly pairingEnabled: boolean;
}

interface PlatformSection {
  readonly allowed_users: readonly string[];
  readonly admin_users: readonly string[];
  readonly allow_all: boolean;
  readonly unknown_users: UnknownUsersMode;
  readonly allowed_roles?: readonly string[];
}

const PLATFORM_TOKEN = /^[a-z][a-z0-9_-]*$/i;

/**
 * A gateway-wide entry: `telegram:123` applies to one platform, a bare `123` to all of them.
 * Only a leading platform-like word counts as a prefix, so ids such as `@alice:matrix.org` stay bare.
 */
export function parseUserEntry(entry: string): {
  readonly platform: string | undefined;
  readonly userId: string;
} {
  const trimmed = entry.trim();
  const colon = trimmed.indexOf(':');
  if (colon > 0) {
    const prefix = trimmed.slice(0, colon);
    const userId = trimmed.slice(colon + 1).trim();
    if (PLATFORM_TOKEN.test(prefix) && userId !== '') return { platform: prefix.toLowerCase(), userId };
  }
  return { platform: undefined, userId: trimmed };
}

/** Ids of the gateway-wide entries that apply to `platform`. */
function gatewayEntriesFor(entries: readonly string[], platform: string): string[] {
  const ids: string[] = [];
  for (const entry of entries) {
    const parsed = parseUserEntry(entry);
    if (parsed.userId === '') continue;
    if (parsed.platform === undefined || parsed.platform === platform) ids.push(parsed.userId);
  }
  return ids;
}

/** Platform sections that carry access settings; any other platform uses the gateway lists only. */
function platformSection(config: AccessConfig, platform: string): PlatformSection | undefined {
  switch (platform) {
    case 'telegram':
      return config.platforms.telegram;
    case 'discord':
      return config.platforms.discord;
    case 'feishu':
      return config.platforms.feishu;
    default:
      return undefined;
  }
}

export function resolvePlatformAccess(config: AccessConfig, platform: string): PlatformAccessPolicy {
  const key = platform.toLowerCase();
  const section = platformSection(config, key);
  const platformAllowed = (section?.allowed_users ?? []).map((id) => id.trim()).filter((id) => id !== '');
  const allowedUsers = new Set([...platformAllowed, ...gatewayEntriesFor(config.gateway.allowed_users, key)]);
  const adminUsers = new Set([
    ...(section?.admin_users ?? []).map((id) => id.trim()).filter((id) => id !== ''),
    ...gatewayEntriesFor(config.gateway.admin_users, key),
  ]);
  const allowedRoles = new Set(
    (section?.allowed_roles ?? []).map((id) => id.trim()).filter((id) => id !== ''),
  );
  const hasAllowlist = allowedUsers.size > 0 || allowedRoles.size > 0;
  const unknownUsers = section?.unknown_users ?? 'auto';
  const allowAll = (section?.allow_all ?? false) || config.gateway.allow_all;
  return {
    platform: key,
    allowAll,
    allowedUsers,
    adminUsers,
    allowedRoles,
    hasAllowlist,
    unknownUsers,
    pairingEnabled: !allowAll && (unknownUsers === 'pair' || (unknownUsers === 'auto' && !hasAllowlist)),
  };
}

/** Entries that look like a wildcard: `*` is not one here (use `allow_all`), so callers can warn. */
export function wildcardEntries(config: AccessConfig): string[] {
  const lists = [
    config.gateway.allowed_users,
    config.platforms.telegram.allowed_users,
    config.platforms.discord.allowed_users,
    config.platforms.feishu.allowed_users,
  ];
  return lists.flat().filter((entry) => parseUserEntry(entry).userId === '*');
}
