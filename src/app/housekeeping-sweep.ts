import type { Logger } from 'pino';
import type { ApprovalGateController } from '../approval/create-approval-gate.js';
import type { GatewayStore } from '../gateway/store/gateway-store.js';
import type { TurnRunner } from '../gateway/turn/create-turn-runner.js';
import { resumeSettledParks } from '../gateway/turn/resume-settled-parks.js';

export interface HousekeepingDeps {
  readonly store: Pick<GatewayStore, 'listParkedTurns' | 'getActionPrompt' | 'prune'>;
  readonly runner: Pick<TurnRunner, 'resume'>;
  readonly approvals: Pick<ApprovalGateController, 'outcome'>;
  readonly logger: Logger;
  readonly now: () => number;
  /** How long an answered pause may wait for its resume before the sweep resumes it, ms. */
  readonly settledGraceMs: number;
}

/**
 * One pass of the gateway's housekeeping, run by every process on a timer: parked turns past
 * their `expiresAt` are resumed (no answer = timeout), answered ones whose resume was lost are
 * resumed, and old state is pruned. Each part runs even when another fails (logged).
 */
export async function housekeepingSweep(deps: HousekeepingDeps): Promise<void> {
  const { store, runner, logger } = deps;
  const parts: readonly [string, () => Promise<unknown>][] = [
    [
      'expired parked turns',
      async () => {
        for (const parked of await store.listParkedTurns({ expiredBy: deps.now() }))
          await runner.resume({ turnId: parked.turnId });
      },
    ],
    [
      'answered parked turns',
      () =>
        resumeSettledParks({
          store,
          approvals: deps.approvals,
          resume: (input) => runner.resume(input),
          logger,
          now: deps.now,
          graceMs: deps.settledGraceMs,
        }),
    ],
    ['pruning', () => store.prune()],
  ];
  for (const [what, run] of parts) {
    try {
      await run();
    } catch (error) {
      logger.warn({ err: (error as Error).message, part: what }, 'housekeeping sweep failed');
    }
  }
}
