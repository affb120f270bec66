import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/approval/approval-types.js';
import { type Harness, message, SESSION_KEY, turnHarness } from './turn-test-kit.js';

let h: Harness;
beforeEach(async () => {
  h = await turnHarness();
});
afterEach(async () => {
  await h.close();
});

/**
 * A second runner on the same store, model and tools whose process "dies" at the moment it hands
 * the claimed "allow once" to the re-run of the command: after the claim and the recovery record,
 * before the command starts.
 */
function runnerThatCrashesBeforeTheCommand() {
  return h.runnerWith({
    approvals: {
      ...h.approvals,
      grant: () => {
        throw new Error('process killed');
      },
    },
  });
}

describe('turn runner: a claimed "allow once" survives a crash before the command starts', () => {
  it('the retry runs the approved command once without asking again, and the grant is used up', async () => {
    const dir = h.victim();
    h.fake.script({
      content: '',
      toolCalls: [{ id: 'rm1', name: 'terminal', arguments: '{"command":"rm -r ./victim"}' }],
    });
    await h.run([message('e1', 'clean up')], { turnId: 'g1' });
    const parked = h.rec.parks()[0]!;
    const request = parked.payload as ApprovalRequest;
    expect((await h.controller.decide(request.id, 'once', { userId: '42' })).status).toBe('recorded');
    const resume = (await h.runner.resumeItem({ turnId: 'g1', parkId: parked.parkId, decision: 'once' }))!;

    h.rec.clear();
    await expect(runnerThatCrashesBeforeTheCommand()([resume], 'r1')).rejects.toThrow();
    expect(existsSync(dir)).toBe(true);
    const outcome = await h.controller.outcome(request.id);
    expect(outcome).toMatchObject({ state: 'approved', scope: 'once', claimed: true });
    expect((await h.store.getParkedTurn('g1'))?.reason).toBe('resuming');

    // The queue retries the turn in another process: the command runs, nobody is asked again.
    h.fake.script({ content: 'Removed it.' });
    await h.run([resume], { turnId: 'r1', attempt: 2 });
    expect(h.rec.terminal().map((entry) => entry.type)).toEqual(['final']);
    expect(h.rec.finals()[0]).toMatchObject({ turnId: 'g1', text: 'Removed it.' });
    expect(existsSync(dir)).toBe(false);
    expect(await h.controller.listPending(SESSION_KEY)).toEqual([]);
    expect(await h.store.getParkedTurn('g1')).toBeUndefined();
  });

  it('is single use: once the command reached the gate, a further retry asks again', async () => {
    h.victim();
    h.fake.script({
      content: '',
      toolCalls: [{ id: 'rm1', name: 'terminal', arguments: '{"command":"rm -r ./victim"}' }],
    });
    await h.run([message('e1', 'clean up')], { turnId: 'g2' });
    const parked = h.rec.parks()[0]!;
    const request = parked.payload as ApprovalRequest;
    await h.controller.decide(request.id, 'once', { userId: '42' });
    const resume = (await h.runner.resumeItem({ turnId: 'g2', parkId: parked.parkId, decision: 'once' }))!;
    // The command starts (the grant is used), then the process dies before its result is written.
    h.fake.script({ hang: true });
    const controller = new AbortController();
    const first = h.run([resume], { turnId: 'r2', signal: controller.signal });
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (h.fake.requests.length >= 2) {
          clearInterval(poll);
          resolve();
        }
      }, 10);
    });
    controller.abort(new Error('shutdown'));
    await first.catch(() => undefined);
    const record = await h.store.getParkedTurn('g2');
    expect(record?.reason).toBe('resuming');
    expect((record?.state as { resolution?: unknown } | undefined)?.resolution).toEqual({ kind: 'dispatch' });
  });
});

/** A runner on the harness' store, model and tools whose process "dies" as it shows a prompt. */
function runnerThatCrashesAtThePrompt() {
  return h.runnerWith({
    events: {
      ...h.rec.events,
      parked: () => {
        throw new Error('process killed');
      },
    },
  });
}

describe('turn runner: a resume that parked again and died before its prompt went out', () => {
  it('the retry of the resume shows the new prompt instead of ignoring it as an earlier park', async () => {
    h.victim('one');
    h.victim('two');
    h.fake.script({
      content: '',
      toolCalls: [{ id: 'rm1', name: 'terminal', arguments: '{"command":"rm -r ./one"}' }],
    });
    await h.run([message('e1', 'clean up')], { turnId: 'g3' });
    const first = h.rec.parks()[0]!;
    await h.controller.decide((first.payload as ApprovalRequest).id, 'once', { userId: '42' });
    const resume = (await h.runner.resumeItem({ turnId: 'g3', parkId: first.parkId, decision: 'once' }))!;

    // The approved command runs; the model then asks for a second one, which needs approval too:
    // the turn parks again, and the process dies while showing that prompt.
    h.rec.clear();
    h.fake.script({
      content: '',
      toolCalls: [{ id: 'rm2', name: 'terminal', arguments: '{"command":"rm -r ./two"}' }],
    });
    await expect(runnerThatCrashesAtThePrompt()([resume], 'r3')).rejects.toThrow('process killed');
    const saved = await h.store.getParkedTurn('g3');
    const second = (saved?.state as { parkId?: string } | undefined)?.parkId;
    expect(second).toBeDefined();
    expect(second).not.toBe(first.parkId);

    // The queue retries the same resume in another process: the person gets the new prompt.
    await h.run([resume], { turnId: 'r3', attempt: 2 });
    expect(h.rec.terminal().map((entry) => entry.type)).toEqual(['parked']);
    expect(h.rec.parks()[0]).toMatchObject({ turnId: 'g3', parkId: second });
    expect((h.rec.parks()[0]!.payload as ApprovalRequest).command).toBe('rm -r ./two');
    expect((await h.store.getParkedTurn('g3'))?.reason).toBe('approval');
  });

  it('a late click on an earlier prompt (a first run) is still ignored', async () => {
    h.victim('three');
    h.fake.script({
      content: '',
      toolCalls: [{ id: 'rm3', name: 'terminal', arguments: '{"command":"rm -r ./three"}' }],
    });
    await h.run([message('e3', 'clean up')], { turnId: 'g4' });
    const parked = h.rec.parks()[0]!;
    h.rec.clear();
    const stale = (await h.runner.resumeItem({ turnId: 'g4', parkId: 'an-older-park', decision: 'once' }))!;
    await h.run([stale], { turnId: 'r4' });
    expect(h.rec.terminal()).toEqual([]);
    expect((await h.store.getParkedTurn('g4'))?.state).toMatchObject({ parkId: parked.parkId });
  });
});
