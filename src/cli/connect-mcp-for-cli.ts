import type { ToolRuntime } from '../app/create-tool-runtime.js';

/** The longest a CLI command waits for MCP servers before it shows what it has (cached listings). */
const CLI_MCP_WAIT_MS = 15_000;

/**
 * For `tools list` and `doctor`: connects the configured MCP servers and waits until each attempt
 * has ended (at most each server's connect_timeout, and 15 s overall). A server that does not
 * connect keeps its last listing from the cache in HERMES_HOME, shown unavailable with the reason.
 */
export async function connectMcpForCli(runtime: ToolRuntime): Promise<void> {
  const servers = Object.values(runtime.config.mcp_servers).filter((server) => server.enabled);
  if (servers.length === 0) return;
  const longest = Math.max(...servers.map((server) => server.connect_timeout * 1_000));
  runtime.mcp.start();
  await runtime.mcp.settled(Math.min(CLI_MCP_WAIT_MS, longest));
}
