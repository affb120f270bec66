import type { CommandImpl } from './command-context.js';

/**
 * `/reload-mcp` (admins): reconnects every MCP server with a fresh tool listing and answers with
 * each server's state once the attempts have ended (or after a short wait).
 */
export const reloadMcpCommand: CommandImpl = async (run) => {
  const { reloadMcp } = run.deps;
  if (reloadMcp === undefined) return ['MCP is not available on this gateway.'];
  const lines = await reloadMcp();
  if (lines.length === 0) {
    return ['No MCP servers are configured (mcp_servers: in config.yaml; see docs/tools-mcp.md).'];
  }
  return [`Reconnected MCP servers:\n${lines.map((line) => `• ${line}`).join('\n')}`];
};
