import type {
  ApprovalGate,
  Finding,
  GateAction,
  GateContext,
  GateDecision,
} from '../../approval/approval-types.js';
import { commandHash } from '../../approval/command-hash.js';
import type { ApprovalGateController } from '../../approval/create-approval-gate.js';

/** How long a resume grant waits for the re-run to reach the gate, ms. */
const GRANT_TTL_MS = 5 * 60_000;
const MAX_GRANTS = 1_000;

/**
 * Bridges a parked approval back into the tool. When a turn resumes after "allow once", the
 * runner claims the approval from the gate (`controller.resume`) and then runs the same tool
 * call again; the terminal asks the gate once more, and without help it would open a fresh
 * request. The runner therefore leaves a one-shot grant for exactly that command (session key +
 * command hash, the same binding the gate uses) right before the re-run; the first matching
 * `check` consumes it and allows. Everything else goes to the real gate unchanged. A file tool's
 * action (`checkAction`) is bound the same way: its summary holds the target and a digest of the
 * exact content, so the grant covers that write and no other.
 *
 * main.ts must hand `gate` (not the bare controller) to the tools as `services.approvalGate`,
 * and the same object to the runner. Grants live in this process only, which is where the
 * re-run happens; a crash between claim and run makes the re-run ask the human again.
 */
export interface ResumableApprovalGate {
  readonly controller: ApprovalGateController;
  /** The gate the tools use (`services.approvalGate`). */
  readonly gate: ApprovalGate;
  /** Allows the next check of this exact command in this session once; returns a revoke function. */
  grant(sessionKey: string, hash: string, findings: readonly Finding[]): () => void;
}

export function createResumableApprovalGate(
  controller: ApprovalGateController,
  options: { readonly now?: () => number } = {},
): ResumableApprovalGate {
  const now = options.now ?? Date.now;
  const grants = new Map<string, { readonly until: number; readonly findings: readonly Finding[] }>();
  const keyOf = (sessionKey: string, hash: string) => `${sessionKey}\u0000${hash}`;

  function prune(): void {
    const current = now();
    for (const [key, grant] of grants) if (grant.until <= current) grants.delete(key);
    while (grants.size > MAX_GRANTS) {
      const oldest = grants.keys().next();
      if (oldest.done) break;
      grants.delete(oldest.value);
    }
  }

  /** The one-shot grant for this exact text in this session, consumed; undefined when none is live. */
  function takeGrant(text: string, ctx: GateContext): GateDecision | undefined {
    const key = keyOf(ctx.sessionKey, commandHash(text, ctx.cwd));
    const grant = grants.get(key);
    if (grant === undefined) return undefined;
    grants.delete(key);
    return grant.until > now() ? { kind: 'allow', reason: 'decided', findings: grant.findings } : undefined;
  }

  const gate: ApprovalGate = {
    async check(command: string, ctx: GateContext): Promise<GateDecision> {
      return takeGrant(command, ctx) ?? controller.check(command, ctx);
    },
    async checkAction(action: GateAction, ctx: GateContext): Promise<GateDecision> {
      return takeGrant(action.summary, ctx) ?? controller.checkAction(action, ctx);
    },
  };

  return {
    controller,
    gate,
    grant(sessionKey, hash, findings) {
      prune();
      const key = keyOf(sessionKey, hash);
      grants.set(key, { until: now() + GRANT_TTL_MS, findings });
      return () => {
        grants.delete(key);
      };
    },
  };
}
