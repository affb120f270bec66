import type { PermanentAllowlist } from './allowlist.js';
import {
  type ApprovalSubject,
  denyRuleMessage,
  describeFindings,
  hardlineMessage,
  sudoStdinMessage,
  unattendedMessage,
} from './approval-messages.js';
import type { DetectResult, ExecBackend, Finding, GateAction, GateDecision } from './approval-types.js';
import { matchDenyRule } from './deny-rules.js';
import { usesSudoStdin } from './sudo-guard.js';

/**
 * The pure part of the gate: given what detection found and the session's state, which rule
 * decides. The order is fixed and each step is a floor for the ones after it:
 *
 *   1. hardline            → refused, whatever the mode (yolo and mode off included)
 *   2. sudo stdin guard    → refused unless terminal.sudo_password is set
 *   3. approvals.deny      → refused
 *   4. nothing dangerous   → allowed
 *   5. docker backend      → allowed (a container; ssh is a real host and keeps the dangerous tier)
 *   6. yolo / mode off     → allowed
 *   7. allowlist, session  → allowed when every dangerous finding is covered, or the whole
 *                            non-compound command matches an exact/glob entry
 *   8. unattended          → refused unless approvals.unattended_mode is approve
 *   9. smart mode          → the reviewer decides (see the gate), else
 *  10. a human decides.
 */

export interface PolicySettings {
  readonly mode: 'manual' | 'smart' | 'off';
  readonly yolo: boolean;
  readonly unattendedMode: 'deny' | 'approve';
  readonly denyRules: readonly string[];
  readonly sudoPasswordConfigured: boolean;
}

/** Steps 1–3: the floors. Returns the refusal, or undefined when no floor applies. */
export function floorDecision(
  command: string,
  detection: DetectResult,
  segments: readonly string[],
  settings: PolicySettings,
): GateDecision | undefined {
  const hardline = detection.findings.filter((finding) => finding.tier === 'hardline');
  if (detection.verdict === 'hardline' || hardline.length > 0) {
    return {
      kind: 'deny',
      reason: 'hardline',
      message: hardlineMessage(describeFindings(hardline)),
      findings: hardline,
    };
  }
  if (!settings.sudoPasswordConfigured && usesSudoStdin(command, segments)) {
    const finding: Finding = {
      key: 'sudo -S without a configured password',
      description: 'sudo -S',
      tier: 'sudo_guard',
    };
    return { kind: 'deny', reason: 'sudo_guard', message: sudoStdinMessage(), findings: [finding] };
  }
  const rule = matchDenyRule(settings.denyRules, command, segments);
  if (rule !== undefined) {
    const finding: Finding = {
      key: `deny rule: ${rule}`,
      description: `deny rule '${rule}'`,
      tier: 'deny_rule',
    };
    return { kind: 'deny', reason: 'deny_rule', message: denyRuleMessage(rule), findings: [finding] };
  }
  return undefined;
}

/**
 * Steps 1 and 3 for a non-command action (a file tool's write or read): any finding that is not
 * dangerous is a floor, and `approvals.deny` globs are matched against the action's subject
 * (`write_file ~/.ssh/authorized_keys`) and its other spellings. There is no sudo guard to apply.
 */
export function actionFloorDecision(action: GateAction, settings: PolicySettings): GateDecision | undefined {
  const floors = action.findings.filter((finding) => finding.tier !== 'dangerous');
  if (floors.length > 0) {
    return {
      kind: 'deny',
      reason: 'hardline',
      message: hardlineMessage(describeFindings(floors), action.kind),
      findings: floors,
    };
  }
  const rule = matchDenyRule(settings.denyRules, action.subject, action.denyTargets ?? []);
  if (rule !== undefined) {
    const finding: Finding = {
      key: `deny rule: ${rule}`,
      description: `deny rule '${rule}'`,
      tier: 'deny_rule',
    };
    return {
      kind: 'deny',
      reason: 'deny_rule',
      message: denyRuleMessage(rule, action.kind),
      findings: [finding],
    };
  }
  return undefined;
}

export interface DangerousInput {
  readonly command: string;
  /** The dangerous-tier findings (non-empty). */
  readonly findings: readonly Finding[];
  readonly compound: boolean;
  readonly backend: ExecBackend;
  readonly unattended: boolean;
  readonly platform: string | undefined;
  readonly sessionYolo: boolean;
  readonly sessionGrants: ReadonlySet<string>;
  readonly allowlist: PermanentAllowlist;
  readonly settings: PolicySettings;
  /** What is checked, for the refusal text (default: a command). */
  readonly subject?: ApprovalSubject;
}

/** What to do next with a dangerous command that passed the floors (steps 5–10). */
export type PolicyStep =
  | GateDecision
  /** Ask the smart reviewer about these (uncovered) findings, then a human if it escalates. */
  | { readonly kind: 'review'; readonly findings: readonly Finding[] }
  /** Ask a human about these (uncovered) findings. */
  | { readonly kind: 'human'; readonly findings: readonly Finding[] };

export function dangerousStep(input: DangerousInput): PolicyStep {
  const { findings, settings } = input;
  if (input.backend === 'docker') return { kind: 'allow', reason: 'container', findings };
  if (settings.yolo || input.sessionYolo) return { kind: 'allow', reason: 'yolo', findings };
  if (settings.mode === 'off') return { kind: 'allow', reason: 'mode_off', findings };
  if (input.allowlist.matchesCommand(input.command, input.compound)) {
    return { kind: 'allow', reason: 'allowlist', findings };
  }
  const uncovered = findings.filter(
    (finding) => !input.allowlist.hasKey(finding.key) && !input.sessionGrants.has(finding.key),
  );
  if (uncovered.length === 0) {
    const bySession = findings.some((finding) => !input.allowlist.hasKey(finding.key));
    return { kind: 'allow', reason: bySession ? 'session_approved' : 'allowlist', findings };
  }
  if (input.unattended) {
    if (settings.unattendedMode === 'approve')
      return { kind: 'allow', reason: 'unattended_approve', findings };
    return {
      kind: 'deny',
      reason: 'unattended',
      message: unattendedMessage(describeFindings(uncovered), input.platform, input.subject),
      findings: uncovered,
    };
  }
  if (settings.mode === 'smart') return { kind: 'review', findings: uncovered };
  return { kind: 'human', findings: uncovered };
}
