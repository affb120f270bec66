import { createHash } from 'node:crypto';

/** OpenAI-compatible APIs accept function names of at most 64 characters of `[A-Za-z0-9_-]`. */
const MAX_NAME = 64;

/**
 * The registry name of an MCP server's tool: `mcp__<server>__<tool>`, with every character a
 * model API refuses replaced by `_`, and the tool part shortened (with a short hash, so two long
 * names stay apart) when the whole would pass 64 characters.
 */
export function mcpToolName(server: string, tool: string): string {
  const prefix = `mcp__${server}__`;
  let part = tool.replace(/[^A-Za-z0-9_-]/g, '_');
  if (part === '') part = '_';
  if (prefix.length + part.length <= MAX_NAME) return prefix + part;
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8);
  const room = Math.max(1, MAX_NAME - prefix.length - hash.length - 1);
  return `${prefix}${part.slice(0, room)}_${hash}`;
}
