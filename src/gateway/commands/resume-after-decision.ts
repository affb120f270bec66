import type { CommandRun, ResumeChoice } from './command-context.js';

/**
 * Asks the gateway to continue the turn parked on a request whose decision was just recorded.
 * A failure is logged, not thrown: the decision stands, and the housekeeping sweep resumes the
 * parked turn once the decision has waited 30 s (src/app/housekeeping-sweep.ts). Returns whether
 * the resume was handed over.
 */
export async function resumeAfterDecision(
  run: CommandRun,
  requestId: string,
  decision: ResumeChoice,
): Promise<boolean> {
  try {
    await run.deps.resumeTurn({ requestId, decision });
    return true;
  } catch (error) {
    run.deps.logger.warn(
      { err: error, requestId, sessionKey: run.input.sessionKey },
      'could not resume the parked turn after a decision; the sweep will pick it up',
    );
    return false;
  }
}

/**
 * Cancels every pending approval request of the session (`/stop`), resuming each parked turn so
 * it ends with a "cancelled" result instead of waiting for its expiry. Returns how many.
 */
export async function cancelPendingApprovals(run: CommandRun, reason: string): Promise<number> {
  const { approvals } = run.deps;
  let cancelled = 0;
  for (const request of await approvals.listPending(run.input.sessionKey)) {
    const report = await approvals.cancel(request.id, reason);
    if (report.status !== 'recorded') continue;
    cancelled += 1;
    await resumeAfterDecision(run, request.id, 'deny');
  }
  return cancelled;
}
