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
 * and the same object to the runner. Grants live in this process, which is where the re-run
 * happens; the runner also keeps the claimed request in the turn's recovery record, so a retry
 * after a crash before the command started grants it again, and `onUse` (awaited when the check
 * consumes the grant) lets it drop that record's grant: single use across processes too.
 */
export interface ResumableApprovalGate {
  readonly controller: ApprovalGateController;
  /** The gate the tools use (`services.approvalGate`). */
  readonly gate: ApprovalGate;
  /**
   * Allows the next check of this exact command in this session once; returns a revoke function.
   * `onUse` runs (awaited) when a check consumes the grant, before it is allowed; if it throws,
   * the check throws and the command does not run.
   */
  grant(
    sessionKey: string,
    hash: string,
    findings: readonly Finding[],
    onUse?: () => Promise<void>,
  ): () => void;
}

export function createResumableApprovalGate(
  controller: ApprovalGateController,
  options: { readonly now?: () => number } = {},
): ResumableApprovalGate {
  const now = options.now ?? Date.now;
  const grants = new Map<
    string,
    {
      readonly until: number;
      readonly findings: readonly Finding[];
      readonly onUse: (() => Promise<void>) | undefined;
    }
  >();
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
  async function takeGrant(text: string, ctx: GateContext): Promise<GateDecision | undefined> {
    const key = keyOf(ctx.sessionKey, commandHash(text, ctx.cwd));
    const grant = grants.get(key);
    if (grant === undefined) return undefined;
    grants.delete(key);
    if (grant.until <= now()) return undefined;
    await grant.onUse?.();
    return { kind: 'allow', reason: 'decided', findings: grant.findings };
  }

  const gate: ApprovalGate = {
    async check(command: string, ctx: GateContext): Promise<GateDecision> {
      return (await takeGrant(command, ctx)) ?? controller.check(command, ctx);
    },
    async checkAction(action: GateAction, ctx: GateContext): Promise<GateDecision> {
      return (await takeGrant(action.summary, ctx)) ?? controller.checkAction(action, ctx);
    },
  };

  return {
    controller,
    gate,
    grant(sessionKey, hash, findings, onUse) {
      prune();
      const key = keyOf(sessionKey, hash);
      grants.set(key, { until: now() + GRANT_TTL_MS, findings, onUse });
      return () => {
        grants.delete(key);
      };
    },
  };
}
