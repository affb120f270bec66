import type { Gateway } from '../../src/app/create-gateway.js';
import type { GateContext } from '../../src/approval/approval-types.js';
import { commandFor } from './round-text.js';
import { BENCH_USER } from './start-roundtrip-gateway.js';

export interface DecideSample {
  /** `approvalGate.decide(id, 'once', …)`: read the request, check the user, record atomically. */
  readonly gateDecideMs: number;
  /** `approvalStore.decide(id, …)` alone: the atomic first-answer-wins write. */
  readonly storeDecideMs: number;
}

/**
 * The baseline: recording a decision for a pending request, with the gateway's own approval
 * gate and store (SQLite in embedded mode, Redis in BullMQ mode). Two requests are opened the way
 * the terminal tool opens them (untimed), then each is decided once (timed).
 */
export async function sampleDecide(gateway: Gateway, workdir: string, round: string): Promise<DecideSample> {
  const { approvalGate: gate, approvalStore: store } = gateway.runtime;
  const ctx: GateContext = {
    sessionKey: `agent:main:test:dm:baseline-${round}`,
    userId: BENCH_USER.userId,
    cwd: workdir,
    platform: 'test',
    unattended: false,
    backend: 'local',
  };
  const first = await gate.check(commandFor(`ga${round}`), ctx);
  const second = await gate.check(commandFor(`sa${round}`), ctx);
  if (first.kind !== 'ask' || second.kind !== 'ask') throw new Error('the baseline command was not flagged');

  let start = performance.now();
  const viaGate = await gate.decide(first.request.id, 'once', { userId: BENCH_USER.userId });
  const gateDecideMs = performance.now() - start;

  start = performance.now();
  const viaStore = await store.decide(second.request.id, {
    choice: 'once',
    userId: BENCH_USER.userId,
    decidedAt: Date.now(),
    commandHash: second.request.commandHash,
  });
  const storeDecideMs = performance.now() - start;
  if (viaGate.status !== 'recorded' || viaStore.status !== 'recorded') {
    throw new Error(`baseline decision not recorded: ${viaGate.status} / ${viaStore.status}`);
  }
  return { gateDecideMs, storeDecideMs };
}
