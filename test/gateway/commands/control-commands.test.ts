import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../queue/queue-test-kit.js';
import { ADMIN, ALICE, type CommandKit, commandKit, SESSION } from './command-kit.js';

let kit: CommandKit | undefined;

async function open(options: Parameters<typeof commandKit>[0] = {}): Promise<CommandKit> {
  kit = await commandKit(options);
  return kit;
}

afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

async function runningTurn(k: CommandKit): Promise<void> {
  await k.holdTurn();
  await waitFor(() => k.running.has(SESSION), 'turn running');
}

describe('/stop', () => {
  it('says when nothing is running', async () => {
    const k = await open();
    expect(await k.send('/stop')).toBe('Nothing is running here, so there is nothing to stop.');
  });

  it('interrupts the running turn (its signal aborts) and lets queued messages run next', async () => {
    const k = await open();
    await runningTurn(k);
    await k.queue.submit({
      sessionKey: SESSION,
      eventId: 'later',
      kind: 'message',
      text: 'later',
      receivedAt: 1,
    });

    expect(await k.send('/stop')).toBe('⏹ Stopped the running task.');
    await waitFor(() => k.turns.handled(SESSION).length === 2, 'queued message ran after the stop');
    expect(k.turns.turns.map((turn) => [turn.eventIds, turn.abortReason])).toEqual([
      [['hold-1'], 'interrupt'],
      [['later'], undefined],
    ]);
  });

  it('cancels pending approvals (denied, cause cancelled) and resumes their parked turns', async () => {
    const k = await open();
    const a = await k.ask('git reset --hard');
    const b = await k.ask('chmod 777 /srv/project/data');
    expect(await k.send('/sto')).toBe('⏹ Cancelled 2 pending approvals; nothing of it ran.');
    for (const request of [a, b]) {
      expect(await k.gate.outcome(request.id)).toMatchObject({ state: 'denied', cause: 'cancelled' });
    }
    expect(k.resumed).toEqual([
      { requestId: a.id, decision: 'deny' },
      { requestId: b.id, decision: 'deny' },
    ]);
    // Session grants survive a /stop (only /new drops them).
    await k.send('/yolo on', ADMIN);
    await k.send('/stop');
    expect(await k.gate.isSessionYolo(SESSION)).toBe(true);
  });

  it('reports both when a turn runs and approvals wait', async () => {
    const k = await open();
    await k.ask('git reset --hard');
    await runningTurn(k);
    expect(await k.send('/stop')).toBe(
      '⏹ Stopped the running task. Also cancelled 1 pending approval; nothing of it ran.',
    );
  });
});

describe('/new', () => {
  it('rotates the session id, stops the running turn, and clears approvals and yolo', async () => {
    const k = await open();
    const before = await k.store.getOrCreateSession(SESSION);
    const request = await k.ask('git reset --hard');
    await k.gate.setSessionYolo(SESSION, true);
    await runningTurn(k);

    const reply = await k.send('/new');
    const after = await k.store.getOrCreateSession(SESSION);
    expect(after.sessionId).not.toBe(before.sessionId);
    expect(reply).toBe(
      [
        `✨ Fresh start: new session ${after.sessionId}.`,
        'The task that was running has been stopped.',
        'Cancelled 1 pending approval; nothing of it ran.',
      ].join('\n'),
    );
    await waitFor(() => k.turns.handled(SESSION).length === 1, 'interrupted turn ended');
    expect(k.turns.turns[0]?.abortReason).toBe('interrupt');
    expect(await k.gate.outcome(request.id)).toMatchObject({ state: 'denied', cause: 'cancelled' });
    expect(k.resumed).toEqual([{ requestId: request.id, decision: 'deny' }]);
    expect(await k.gate.isSessionYolo(SESSION)).toBe(false);
  });

  it('answers to /reset, takes a title and keeps the model choice', async () => {
    const k = await open();
    await k.send('/model my-model');
    const reply = await k.send('/reset  release  notes ');
    const session = await k.store.getOrCreateSession(SESSION);
    expect(session.title).toBe('release notes');
    expect(session.modelOverride).toBe('my-model');
    expect(reply).toBe(
      `✨ Fresh start: new session ${session.sessionId} — "release notes".\nKept this chat's model my-model.`,
    );
  });
});

describe('/queue', () => {
  it('queues a message for the next turn without interrupting the running one', async () => {
    const k = await open();
    await runningTurn(k);
    expect(await k.send('/queue then write the summary')).toBe(
      '⏳ Queued for the next turn; the current one carries on.',
    );
    expect(k.turns.turns[0]?.ended).toBe(false);
    await k.send('/stop');
    await waitFor(() => k.turns.handled(SESSION).length === 2, 'queued message ran');
    expect(k.turns.turns[1]?.eventIds).toEqual([expect.stringMatching(/^queued-/)]);
  });

  it('starts a turn at once when nothing runs, and explains its usage', async () => {
    const k = await open();
    expect(await k.send('/q hello')).toBe('Nothing was running, so I am on it now.');
    await waitFor(() => k.turns.handled(SESSION).length === 1, 'turn ran');
    expect(await k.send('/queue')).toBe('Usage: /queue <message> — the message waits for the next turn.');
    expect(await k.send('/queue hi', ALICE, { makeItem: undefined })).toBe(
      '/queue is not available on this platform.',
    );
  });

  it('never interrupts, even in interrupt mode', async () => {
    const k = await open({ busyInputMode: 'interrupt' });
    await runningTurn(k);
    expect(await k.send('/queue next please')).toBe(
      '⏳ Queued for the next turn; the current one carries on.',
    );
    expect(k.turns.turns[0]?.ended).toBe(false);
    await k.send('/stop');
    await waitFor(() => k.turns.handled(SESSION).length === 2, 'queued message ran');
  });
});
