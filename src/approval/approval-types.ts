/** Shared vocabulary of the approval gate: detection findings, requests and decisions. */

export type FindingTier = 'hardline' | 'sudo_guard' | 'deny_rule' | 'dangerous';

export interface Finding {
  /** Stable key; equal to the human description (Hermes keeps key == description). */
  readonly key: string;
  readonly description: string;
  readonly tier: FindingTier;
}

export interface DetectResult {
  readonly verdict: 'hardline' | 'dangerous' | 'safe';
  readonly findings: readonly Finding[];
}

export type ApprovalScope = 'once' | 'session' | 'always';
export type ApprovalChoice = ApprovalScope | 'deny';

/**
 * A gated action that is not a shell command: a file tool writing or reading a sensitive file, or
 * a Discord moderation action (`discord_admin`: channel topic, slowmode, member timeout), or a
 * call of an MCP server's tool marked destructive (`mcp_tool`).
 */
export type ActionKind = 'file_write' | 'file_read' | 'discord_admin' | 'mcp_tool';

/**
 * A non-command action to check, with findings the caller computed (the file tools classify the
 * path against the table of sensitive locations). The gate applies the same floors, yolo, modes,
 * session and permanent approvals as for commands, and asks a human about the rest.
 */
export interface GateAction {
  readonly kind: ActionKind;
  /**
   * Tool and target, e.g. `write_file ~/.zshenv`: what `approvals.deny` globs are matched
   * against (with `denyTargets`, other spellings of the same target).
   */
  readonly subject: string;
  readonly denyTargets?: readonly string[];
  /**
   * The text a human approves (the request's `command`): a readable summary whose first line
   * names the tool and target and which includes a digest of the exact content, so the decision
   * (bound by `commandHash(summary, cwd)`) covers only that content.
   */
  readonly summary: string;
  /** Dangerous findings ask; any other tier is a floor and refuses. Empty: only the floors apply. */
  readonly findings: readonly Finding[];
}

export interface ApprovalRequest {
  /** Short id (fits a Telegram callback_data of 64 bytes with its prefix). */
  readonly id: string;
  readonly command: string;
  readonly cwd: string;
  readonly findings: readonly Finding[];
  readonly sessionKey: string;
  readonly userId: string | undefined;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly expiresAt: number;
  /** sha256 over command + cwd: a decision applies only to this exact command. */
  readonly commandHash: string;
  /** False when only once/deny may be offered (long command shortened in the prompt, smart deny). */
  readonly allowPermanent: boolean;
  /** True for an owner override of a smart-reviewer denial (prompt offers once/deny only). */
  readonly smartDenied?: boolean;
  /** Set when the request is not for a shell command: `command` then holds the action's summary. */
  readonly action?: ActionKind;
}

/** Where a command would run; container backends skip the dangerous tier but keep the floors. */
export type ExecBackend = 'local' | 'docker' | 'ssh' | 'sandbox';

export interface GateContext {
  readonly sessionKey: string;
  readonly userId: string | undefined;
  readonly cwd: string;
  readonly platform: string | undefined;
  readonly unattended: boolean;
  readonly backend: ExecBackend;
  readonly signal?: AbortSignal;
}

export type AllowReason =
  | 'safe'
  | 'yolo'
  | 'mode_off'
  | 'allowlist'
  | 'session_approved'
  | 'smart_approved'
  | 'unattended_approve'
  | 'container'
  | 'decided';

export type DenyReason =
  | 'hardline'
  | 'sudo_guard'
  | 'deny_rule'
  | 'unattended'
  | 'smart_denied'
  | 'denied'
  | 'timeout'
  | 'cancelled';

export type GateDecision =
  | { readonly kind: 'allow'; readonly reason: AllowReason; readonly findings: readonly Finding[] }
  | {
      readonly kind: 'deny';
      readonly reason: DenyReason;
      /** Text for the model, in the project's own words. */
      readonly message: string;
      readonly findings: readonly Finding[];
    }
  | {
      readonly kind: 'ask';
      readonly request: ApprovalRequest;
      /**
       * True when an identical request of the same session was already pending and this call joined
       * it: no second prompt should be sent, and an `once` answer covers only the first caller.
       */
      readonly coalesced?: boolean;
    };

/** What a terminal-like tool (and a file tool) needs from the gate. */
export interface ApprovalGate {
  check(command: string, ctx: GateContext): Promise<GateDecision>;
  /**
   * Checks a non-command action with precomputed findings. File actions always touch this
   * machine, so `ctx.backend` is taken as `local` whatever it says.
   */
  checkAction(action: GateAction, ctx: GateContext): Promise<GateDecision>;
}
