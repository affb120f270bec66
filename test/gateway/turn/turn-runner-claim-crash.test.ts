import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/approval/approval-types.js';
import { RESUMING } from '../../../src/gateway/turn/parked-state.js';
import type { TurnStore } from '../../../src/gateway/turn/runner-core.js';
import { type Harness, message, turnHarness } from './turn-test-kit.js';

let h: Harness;
beforeEach(async () => {
  h = await turnHarness();
});
afterEach(async () => {
  await h.close();
});

/**
 * A runner on the harness' store, model and tools whose process "dies" as it writes the recovery
 * record of a resume: whatever write puts that record in place fails as a killed process would
 * (a single transaction leaves nothing changed; two separate writes leave the first done).
 */
function runnerThatDiesWritingTheRecoveryRecord() {
  const killed = () => {
    throw new Error('process killed');
  };
  const store: TurnStore = {
    ...h.store,
    saveParkedTurn: (input) => (input.reason === RESUMING ? killed() : h.store.saveParkedTurn(input)),
    replaceParkedTurn: (turnId, reason, next) =>
      next.reason === RESUMING ? killed() : h.store.replaceParkedTurn(turnId, reason, next),
  };
  return h.runnerWith({ store });
}

describe('turn runner: a resume killed while it claims the parked turn', () => {
  // Found by the process chaos run: the park was deleted, the process died before the recovery
  // record was written, and the retry of the resume found nothing to resume — the approved
  // command never ran and the chat never got an answer.
  it('the retry still finds the turn, runs the approved command once and answers', async () => {
    const dir = h.victim();
    h.fake.script({
      content: '',
      toolCalls: [{ id: 'rm1', name: 'terminal', arguments: '{"command":"rm -r ./victim"}' }],
    });
    await h.run([message('e1', 'clean up')], { turnId: 'c1' });
    const parked = h.rec.parks()[0]!;
    const request = parked.payload as ApprovalRequest;
    expect((await h.controller.decide(request.id, 'once', { userId: '42' })).status).toBe('recorded');
    const resume = (await h.runner.resumeItem({ turnId: 'c1', parkId: parked.parkId, decision: 'once' }))!;

    h.rec.clear();
    await expect(runnerThatDiesWritingTheRecoveryRecord()([resume], 'r1')).rejects.toThrow('process killed');
    expect(existsSync(dir)).toBe(true);
    expect((await h.store.getParkedTurn('c1'))?.reason).toBe('approval');

    // The queue retries the resume in another process.
    h.fake.script({ content: 'Removed it.' });
    await h.run([resume], { turnId: 'r1', attempt: 2 });
    expect(h.rec.terminal().map((entry) => entry.type)).toEqual(['final']);
    expect(h.rec.finals()[0]).toMatchObject({ turnId: 'c1', text: 'Removed it.' });
    expect(existsSync(dir)).toBe(false);
    expect(await h.store.getParkedTurn('c1')).toBeUndefined();
  });
});
