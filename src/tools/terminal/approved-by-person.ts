import type { AllowReason } from '../../approval/approval-types.js';

/** Allow reasons that mean a person (or the operator's allowlist) approved this very command. */
const APPROVED: ReadonlySet<AllowReason> = new Set(['decided', 'session_approved', 'allowlist']);

/** True when the command runs because a person approved it, not because it looked safe. */
export function approvedByPerson(reason: AllowReason): boolean {
  return APPROVED.has(reason);
}
