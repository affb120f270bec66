import type { Config } from '../config/config-schema.js';

/** The toolset of an MCP server's tools. */
export function mcpToolsetName(server: string): string {
  return `mcp-${server}`;
}

/**
 * One (initially empty) toolset per configured MCP server, so `mcp-<name>` is a known toolset
 * from the start — before, or without, a connection; the server's tools join it when listed.
 */
export function mcpToolsetSpecs(
  config: Pick<Config, 'mcp_servers'>,
): Record<string, { description: string; tools: readonly string[]; includes: readonly string[] }> {
  const specs: Record<
    string,
    { description: string; tools: readonly string[]; includes: readonly string[] }
  > = {};
  for (const [name, server] of Object.entries(config.mcp_servers)) {
    specs[mcpToolsetName(name)] = {
      description: `Tools of MCP server '${name}'${server.enabled ? '' : ' (disabled in config.yaml)'}`,
      tools: [],
      includes: [],
    };
  }
  return specs;
}

/**
 * The MCP toolsets a session of `platform` gets by default: every enabled server's, on chat
 * platforms and the API server; never on webhooks (a route names a toolset to widen its subset).
 * A server's `platforms:` list narrows it to those platforms.
 */
export function defaultMcpToolsets(config: Pick<Config, 'mcp_servers'>, platform: string): string[] {
  if (platform === 'webhook') return [];
  return Object.entries(config.mcp_servers)
    .filter(
      ([, server]) =>
        server.enabled && (server.platforms === undefined || server.platforms.includes(platform)),
    )
    .map(([name]) => mcpToolsetName(name))
    .sort();
}
