import type { Config } from '../../config/config-schema.js';
import { defaultMcpToolsets } from '../../registry/mcp-toolsets.js';
import type { Toolsets } from '../../registry/toolsets.js';
import type { SessionRecord } from '../store/session-store.js';
import type { TurnOrigin } from './turn-origin.js';

/** The preset a platform gets when its origin names none: `hermes-<platform>` (`_` → `-`). */
export function defaultPreset(platform: string): string {
  return `hermes-${platform.replaceAll('_', '-')}`;
}

/**
 * A session's toolsets when no chat command chose them: the origin's preset (or the platform's)
 * plus the MCP servers' toolsets enabled for the platform (never for webhooks).
 */
export function defaultToolsets(
  config: Pick<Config, 'mcp_servers'>,
  platform: string,
  preset: string = defaultPreset(platform),
): string[] {
  return [preset, ...defaultMcpToolsets(config, platform)];
}

/**
 * The tools a turn may use: the session's toolset overrides (set by chat commands) or else the
 * origin's preset, plus `tools.enabled_toolsets` (not for webhooks: they keep their safe subset
 * unless their route widens it through the origin), minus `tools.disabled_toolsets`.
 * Throws `toolset_unknown` when a name resolves to nothing known.
 */
export function resolveSessionTools(input: {
  readonly origin: TurnOrigin;
  readonly session: Pick<SessionRecord, 'toolsetOverrides'>;
  readonly config: Config;
  readonly toolsets: Pick<Toolsets, 'resolveSelection'>;
}): string[] {
  const { origin, session, config } = input;
  const base =
    session.toolsetOverrides ??
    defaultToolsets(config, origin.platform, origin.toolset ?? defaultPreset(origin.platform));
  const extra = origin.platform === 'webhook' ? [] : config.tools.enabled_toolsets;
  return input.toolsets.resolveSelection([...base, ...extra], config.tools.disabled_toolsets);
}
