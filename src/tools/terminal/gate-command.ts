import type {
  AllowReason,
  ApprovalGate,
  ApprovalRequest,
  GateAction,
  GateContext,
  GateDecision,
} from '../../approval/approval-types.js';
import { HermesError, type HermesErrorCode } from '../../errors/hermes-error.js';
import { ToolPause } from '../../registry/tool-pause.js';

/**
 * What a parked terminal call carries: the approval request, plus whether this caller's `ask`
 * was coalesced onto an identical pending request (the turn runner passes it to `gate.resume`).
 */
export type ApprovalPausePayload = ApprovalRequest & { readonly coalesced: boolean };

/** How a gated tool names what it was about to do, and the error code of a refusal. */
interface GatedWhat {
  /** "This command" / "This file write". */
  readonly noun: string;
  /** "run" / "happen". */
  readonly verb: string;
  readonly deniedCode: HermesErrorCode;
}

const COMMAND: GatedWhat = { noun: 'This command', verb: 'run', deniedCode: 'command_denied' };

/**
 * Turns a gate decision into what the tool does: returns when it may go ahead, throws an error
 * the model reads on a denial, and throws a ToolPause (the turn is parked) when a human must
 * decide. One implementation for the terminal and the file tools.
 */
function enforce(decision: GateDecision, what: GatedWhat): AllowReason {
  switch (decision.kind) {
    case 'allow':
      return decision.reason;
    case 'deny':
      throw new HermesError(what.deniedCode, decision.message);
    case 'ask':
      throw new ToolPause(
        'approval',
        { ...decision.request, coalesced: decision.coalesced === true } satisfies ApprovalPausePayload,
        `${what.noun} needs a human's approval before it can ${what.verb} (request ${decision.request.id}). ` +
          'The turn is paused until someone approves or denies it. Do not retry or rephrase it meanwhile.',
      );
    default:
      throw new HermesError(what.deniedCode, 'refused: the approval gate gave an unknown answer');
  }
}

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
  return enforce(await gate.check(command, ctx), COMMAND);
}

/**
 * Asks the gate about a file tool's action (see `GateAction`); same outcomes as `gateCommand`,
 * with refusals as `path_refused`.
 */
export async function gateAction(gate: ApprovalGate, action: GateAction, ctx: GateContext): Promise<void> {
  const noun = action.kind === 'file_write' ? 'This file write' : 'This file read';
  enforce(await gate.checkAction(action, ctx), { noun, verb: 'happen', deniedCode: 'path_refused' });
}
