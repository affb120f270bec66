import type { ApprovalGate, Finding, GateAction, GateContext } from '../../approval/approval-types.js';
import { HermesError } from '../../errors/hermes-error.js';
import { ToolPause } from '../../registry/tool-pause.js';

/**
 * A Discord admin action as the approval gate's `checkAction` takes it: the subject deny globs
 * match (`discord_admin timeout 123`), a summary a human approves (exact target and values, so a
 * decision covers only them), and the finding that makes it need a human.
 */
export type DiscordAdminAction = GateAction & { readonly kind: 'discord_admin' };

/** The finding of every admin action: it changes a server for everyone, so a human decides. */
export function adminFinding(what: string): Finding {
  const description = `Discord moderation: ${what}`;
  return { key: description, description, tier: 'dangerous' };
}

/**
 * Asks the gate about one admin action. Returns when it may happen; a refusal throws an error the
 * model reads; a question for a human throws a ToolPause (the turn parks until someone answers,
 * and the same call runs again once it is allowed).
 */
export async function gateDiscordAction(
  gate: ApprovalGate | undefined,
  action: DiscordAdminAction,
  ctx: GateContext,
): Promise<void> {
  if (gate === undefined) {
    throw new HermesError(
      'command_denied',
      'Discord admin actions need the approval gate, which is not available here.',
    );
  }
  const decision = await gate.checkAction(action, ctx);
  switch (decision.kind) {
    case 'allow':
      return;
    case 'deny':
      throw new HermesError('command_denied', decision.message);
    case 'ask':
      throw new ToolPause(
        'approval',
        { ...decision.request, coalesced: decision.coalesced === true },
        `This Discord admin action needs a human's approval first (request ${decision.request.id}). ` +
          'The turn is paused until someone approves or denies it. Do not retry or rephrase it meanwhile.',
      );
    default:
      throw new HermesError('command_denied', 'refused: the approval gate gave an unknown answer');
  }
}
