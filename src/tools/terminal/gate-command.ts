import type {
  AllowReason,
  ApprovalGate,
  ApprovalRequest,
  GateContext,
} from '../../approval/approval-types.js';
import { HermesError } from '../../errors/hermes-error.js';
import { ToolPause } from '../../registry/tool-pause.js';

/**
 * What a parked terminal call carries: the approval request, plus whether this caller's `ask`
 * was coalesced onto an identical pending request (the turn runner passes it to `gate.resume`).
 */
export type ApprovalPausePayload = ApprovalRequest & { readonly coalesced: boolean };

/**
 * Asks the gate about one command. Returns only when it may run (with the reason it may): a
 * denial throws an error the model reads, a question for a human throws a ToolPause so the turn
 * is parked.
 */
export async function gateCommand(
  gate: ApprovalGate,
  command: string,
  ctx: GateContext,
): Promise<AllowReason> {
  const decision = await gate.check(command, ctx);
  switch (decision.kind) {
    case 'allow':
      return decision.reason;
    case 'deny':
      throw new HermesError('command_denied', decision.message);
    case 'ask':
      throw new ToolPause(
        'approval',
        { ...decision.request, coalesced: decision.coalesced === true } satisfies ApprovalPausePayload,
        `This command needs a human's approval before it can run (request ${decision.request.id}). ` +
          'The turn is paused until someone approves or denies it. Do not retry or rephrase the command meanwhile.',
      );
    default:
      throw new HermesError('command_denied', 'command refused: the approval gate gave an unknown answer');
  }
}
