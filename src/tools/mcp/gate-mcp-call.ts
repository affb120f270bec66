import { createHash } from 'node:crypto';
import type { ApprovalGate, GateAction } from '../../approval/approval-types.js';
import { HermesError } from '../../errors/hermes-error.js';
import { ToolPause } from '../../registry/tool-pause.js';
import type { ToolContext } from '../../registry/tool-types.js';

const SHOWN_ARGS = 1_500;

/**
 * The gate's view of one MCP call: the subject deny globs match (`mcp__github__delete_repo`), a
 * summary a human approves (tool, server and the exact arguments with their digest, so a
 * decision covers only them) and the finding that makes it need a human.
 */
export function mcpCallAction(input: {
  readonly toolName: string;
  readonly server: string;
  readonly mcpTool: string;
  readonly args: unknown;
  readonly why: 'destructive' | 'all';
}): GateAction {
  const json = JSON.stringify(input.args ?? {});
  const digest = createHash('sha256').update(json).digest('hex').slice(0, 16);
  const shown = json.length > SHOWN_ARGS ? `${json.slice(0, SHOWN_ARGS)}…` : json;
  const description =
    input.why === 'destructive'
      ? `MCP tool '${input.mcpTool}' of server '${input.server}' is marked destructive`
      : `MCP server '${input.server}' asks approval for every call (approval: all)`;
  return {
    kind: 'mcp_tool',
    subject: input.toolName,
    summary: `${input.toolName} (MCP server ${input.server}), arguments (sha256 ${digest}):\n${shown}`,
    findings: [{ key: `mcp tool: ${input.toolName}`, description, tier: 'dangerous' }],
  };
}

/**
 * Asks the gate about one call. Returns when it may go ahead; a refusal throws an error the model
 * reads; a question for a human throws a ToolPause (the turn parks until someone answers, and the
 * same call runs again once it is allowed).
 */
export async function gateMcpCall(action: GateAction, ctx: ToolContext): Promise<void> {
  const gate: ApprovalGate | undefined = ctx.services.approvalGate;
  if (gate === undefined) {
    throw new HermesError(
      'command_denied',
      'This MCP tool needs the approval gate, which is not available here.',
    );
  }
  const decision = await gate.checkAction(action, {
    sessionKey: ctx.sessionKey,
    userId: ctx.userId,
    cwd: ctx.cwd,
    platform: ctx.platform,
    unattended: ctx.unattended,
    backend: 'local',
    signal: ctx.signal,
  });
  switch (decision.kind) {
    case 'allow':
      return;
    case 'deny':
      throw new HermesError('command_denied', decision.message);
    case 'ask':
      throw new ToolPause(
        'approval',
        { ...decision.request, coalesced: decision.coalesced === true },
        `This MCP tool call needs a human's approval first (request ${decision.request.id}). ` +
          'The turn is paused until someone approves or denies it. Do not retry or rephrase it meanwhile.',
      );
    default:
      throw new HermesError('command_denied', 'refused: the approval gate gave an unknown answer');
  }
}
