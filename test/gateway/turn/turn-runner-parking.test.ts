import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/approval/approval-types.js';
import { abortTurn, TurnAbortedError } from '../../../src/gateway/queue/turn-abort.js';
import { type Harness, message, requestMessages, turnHarness } from './turn-test-kit.js';

let h: Harness;
beforeEach(async () => {
  h = await turnHarness();
});
afterEach(async () => {
  await h.close();
});

function terminalTypes() {
  return h.rec.terminal().map((entry) => entry.type);
}

async function parkOnRemoval(turnId: string) {
  const dir = h.victim();
  h.fake.script({
    content: '',
    toolCalls: [
      { id: 'rm1', name: 'terminal', arguments: '{"command":"rm -r ./victim"}' },
      { id: 'e2', name: 'echo_text', arguments: '{"text":"after"}' },
    ],
  });
  await h.run([message('e1', 'clean up')], { turnId });
  expect(terminalTypes()).toEqual(['parked']);
  const parked = h.rec.parks()[0]!;
  const request = parked.payload as ApprovalRequest;
  return { dir, parked, request };
}

describe('turn runner: parking on approvals', () => {
  it('parks without running anything, then runs the command once after "allow once"', async () => {
    const { dir, parked, request } = await parkOnRemoval('p1');
    expect(parked).toMatchObject({
      turnId: 'p1',
      reason: 'approval',
      toolCallId: 'rm1',
      toolName: 'terminal',
    });
    expect(request.command).toBe('rm -r ./victim');
    expect(existsSync(dir)).toBe(true);
    expect(h.kit.runs.get('echo_text')).toBeUndefined();
    const stored = await h.store.getParkedTurn('p1');
    expect(stored).toMatchObject({ reason: 'approval', expiresAt: request.expiresAt });

    // Until someone decides, a resume changes nothing and says nothing.
    const early = await h.runner.resumeItem({ turnId: 'p1', parkId: parked.parkId });
    h.rec.clear();
    await h.run([early!]);
    expect(h.rec.terminal()).toEqual([]);
    expect(await h.store.getParkedTurn('p1')).toBeDefined();

    expect((await h.controller.decide(request.id, 'once', { userId: '42' })).status).toBe('recorded');
    const item = await h.runner.resumeItem({ turnId: 'p1', parkId: parked.parkId, decision: 'once' });
    expect(item).toMatchObject({ kind: 'resume', sessionKey: parked.sessionKey });
    h.fake.script({ content: 'Removed it.' });
    await h.run([item!], { turnId: 'queue-turn-2' });
    expect(terminalTypes()).toEqual(['final']);
    expect(h.rec.finals()[0]).toMatchObject({ turnId: 'p1', text: 'Removed it.' });
    expect(existsSync(dir)).toBe(false);
    expect(h.kit.runs.get('echo_text')).toBe(1);
    const results = requestMessages(h.fake, 1).filter((m) => m['role'] === 'tool');
    expect(results.map((m) => m['tool_call_id'])).toEqual(['rm1', 'e2']);
    expect(String(results[0]!['content'])).toContain('"exit_code":0');
    expect(await h.store.getParkedTurn('p1')).toBeUndefined();

    // The same resume again (a double click that got past dedupe) does nothing.
    h.rec.clear();
    await h.run([item!]);
    expect(h.rec.terminal()).toEqual([]);
    expect(h.fake.requests).toHaveLength(2);
  });

  it('after "deny" the model gets the denial and the command never runs', async () => {
    const { dir, parked, request } = await parkOnRemoval('p2');
    await h.controller.decide(request.id, 'deny', { userId: '42', reason: 'not today' });
    h.rec.clear();
    h.fake.script({ content: 'Understood, I left it.' });
    await h.run([(await h.runner.resumeItem({ turnId: 'p2', parkId: parked.parkId }))!]);
    expect(terminalTypes()).toEqual(['final']);
    expect(existsSync(dir)).toBe(true);
    const result = requestMessages(h.fake, 1).find((m) => m['tool_call_id'] === 'rm1')!;
    expect(String(result['content'])).toContain('not today');
    expect(h.kit.runs.get('echo_text')).toBe(1);
  });

  it('a resume naming an older park is ignored', async () => {
    const { parked } = await parkOnRemoval('p3');
    h.rec.clear();
    const stale = await h.runner.resumeItem({ turnId: 'p3', parkId: 'not-this-one' });
    await h.run([stale!]);
    expect(h.rec.terminal()).toEqual([]);
    expect((await h.store.getParkedTurn('p3'))?.reason).toBe('approval');
    expect(parked.parkId).not.toBe('not-this-one');
  });

  it('a crashed run that had already parked re-announces the park instead of asking again', async () => {
    const { parked } = await parkOnRemoval('p4');
    h.rec.clear();
    await h.run([message('e1', 'clean up')], { turnId: 'p4', attempt: 2 });
    expect(terminalTypes()).toEqual(['parked']);
    expect(h.rec.parks()[0]!.parkId).toBe(parked.parkId);
    expect(h.fake.requests).toHaveLength(1);
  });

  it('other turns of the session can run while one is parked; the late result stays in order', async () => {
    const { parked, request } = await parkOnRemoval('p5');
    h.fake.script({ content: 'Meanwhile: hello.' });
    await h.run([message('e9', 'unrelated question')], { turnId: 'other' });
    const between = requestMessages(h.fake, 1);
    expect(between.find((m) => m['tool_call_id'] === 'rm1')).toMatchObject({ role: 'tool' });
    expect(String(between.find((m) => m['tool_call_id'] === 'rm1')!['content'])).toContain('no_result');

    await h.controller.decide(request.id, 'deny', { userId: '42' });
    h.rec.clear();
    h.fake.script({ content: 'OK, not removed.' });
    await h.run([(await h.runner.resumeItem({ turnId: 'p5', parkId: parked.parkId }))!]);
    expect(h.rec.finals()[0]).toMatchObject({ turnId: 'p5' });
    const after = requestMessages(h.fake, 2);
    // The real result arrived after the other turn: it is a note there, never an orphan tool message.
    expect(String(after.at(-2)!['content'])).toContain('Result of your earlier terminal call (rm1)');
    expect(after.at(-1)!['content']).toContain('Result of your earlier echo_text call (e2)');
  });

  it('an unattended origin never parks: the dangerous command is refused at once', async () => {
    const dir = h.victim();
    h.fake.script(
      {
        content: '',
        toolCalls: [{ id: 'rm1', name: 'terminal', arguments: '{"command":"rm -r ./victim"}' }],
      },
      { content: 'I was not allowed to.' },
    );
    await h.run([message('e1', 'clean up', { unattended: true })]);
    expect(terminalTypes()).toEqual(['final']);
    expect(existsSync(dir)).toBe(true);
    expect(String(requestMessages(h.fake, 1).at(-1)!['content'])).toMatch(/error/i);
  });
});

describe('turn runner: clarify', () => {
  it('parks on a question and continues with the answer', async () => {
    h.fake.script({
      content: '',
      toolCalls: [
        { id: 'q1', name: 'clarify', arguments: '{"question":"Which colour?","choices":["red","blue"]}' },
      ],
    });
    await h.run([message('e1', 'paint it')], { turnId: 'c1' });
    expect(terminalTypes()).toEqual(['parked']);
    const parked = h.rec.parks()[0]!;
    expect(parked).toMatchObject({
      reason: 'clarify',
      payload: { question: 'Which colour?', choices: ['red', 'blue'] },
    });

    h.rec.clear();
    h.fake.script({ content: 'Painting it blue.' });
    await h.run([(await h.runner.resumeItem({ turnId: 'c1', parkId: parked.parkId, answer: 'blue' }))!]);
    expect(terminalTypes()).toEqual(['final']);
    expect(h.rec.finals()[0]).toMatchObject({ turnId: 'c1', text: 'Painting it blue.' });
    expect(requestMessages(h.fake, 1).at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'q1',
      content: JSON.stringify({ answered: true, answer: 'blue' }),
    });
  });

  it('resumes without an answer when the question timed out', async () => {
    h.fake.script({
      content: '',
      toolCalls: [{ id: 'q1', name: 'clarify', arguments: '{"question":"Sure?"}' }],
    });
    await h.run([message('e1', 'do it')], { turnId: 'c2' });
    const parked = h.rec.parks()[0]!;
    h.fake.script({ content: 'Went ahead.' });
    await h.run([(await h.runner.resumeItem({ turnId: 'c2', parkId: parked.parkId }))!]);
    expect(String(requestMessages(h.fake, 1).at(-1)!['content'])).toContain('did not answer');
  });

  it('unattended: the question is answered with "nobody present" and the turn goes on', async () => {
    h.fake.script(
      { content: '', toolCalls: [{ id: 'q1', name: 'clarify', arguments: '{"question":"Sure?"}' }] },
      { content: 'Assumed yes.' },
    );
    await h.run([message('e1', 'do it', { unattended: true })]);
    expect(terminalTypes()).toEqual(['final']);
    expect(String(requestMessages(h.fake, 1).at(-1)!['content'])).toContain('Nobody is present');
  });

  it('a resume and a new message in one batch each get their own outcome, in order', async () => {
    h.fake.script({
      content: '',
      toolCalls: [{ id: 'q1', name: 'clarify', arguments: '{"question":"Sure?"}' }],
    });
    await h.run([message('e1', 'do it')], { turnId: 'c3' });
    const parked = h.rec.parks()[0]!;
    h.rec.clear();
    h.fake.script({ content: 'Did it.' }, { content: 'And hello.' });
    const resume = await h.runner.resumeItem({ turnId: 'c3', parkId: parked.parkId, answer: 'yes' });
    await h.run([resume!, message('e2', 'hello')], { turnId: 'q9' });
    expect(h.rec.terminal().map((entry) => [entry.type, entry.event.turnId])).toEqual([
      ['final', 'c3'],
      ['final', 'q9'],
    ]);
  });

  it('a resume that crashes half-way is finished by its retry, with the answer written once', async () => {
    h.fake.script({
      content: '',
      toolCalls: [
        { id: 'q1', name: 'clarify', arguments: '{"question":"Go?"}' },
        { id: 'b1', name: 'block_tool', arguments: '{}' },
      ],
    });
    await h.run([message('e1', 'do both')], { turnId: 'c4' });
    const parked = h.rec.parks()[0]!;
    const resume = (await h.runner.resumeItem({ turnId: 'c4', parkId: parked.parkId, answer: 'go' }))!;
    h.rec.clear();
    const controller = new AbortController();
    const first = h.run([resume], { turnId: 'r1', signal: controller.signal });
    await h.kit.blockStarted;
    abortTurn(controller, 'shutdown');
    await expect(first).rejects.toBeInstanceOf(TurnAbortedError);
    expect(h.rec.terminal()).toEqual([]);
    expect((await h.store.getParkedTurn('c4'))?.reason).toBe('resuming');

    h.kit.releaseBlock();
    h.fake.script({ content: 'Both done.' });
    await h.run([resume], { turnId: 'r1', attempt: 2 });
    expect(terminalTypes()).toEqual(['final']);
    expect(h.rec.finals()[0]).toMatchObject({ turnId: 'c4', text: 'Both done.' });
    const transcript = await h.transcript();
    expect(transcript.filter((m) => m.toolCallId === 'q1')).toHaveLength(1);
    expect(transcript.filter((m) => m.toolCallId === 'b1')).toHaveLength(1);
    expect(await h.store.getParkedTurn('c4')).toBeUndefined();
  });
});
