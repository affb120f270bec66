import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, ALICE, BOB, type CommandKit, CWD, commandKit, SESSION } from './command-kit.js';

let kit: CommandKit;

beforeEach(async () => {
  kit = await commandKit();
});

afterEach(async () => {
  await kit.close();
});

const stateOf = async (id: string) => (await kit.gate.outcome(id)).state;

describe('/approve', () => {
  it('says so when nothing is waiting', async () => {
    expect(await kit.send('/approve')).toBe('Nothing is waiting for approval in this chat.');
    expect(kit.resumed).toEqual([]);
  });

  it('approves the oldest pending request once and resumes its turn', async () => {
    const first = await kit.ask('git reset --hard');
    kit.advance(1_000);
    const second = await kit.ask('chmod 777 /srv/project/data');

    expect(await kit.send('/approve')).toBe('✅ Approved once: git reset --hard');
    expect(await kit.gate.outcome(first.id)).toMatchObject({ state: 'approved', scope: 'once' });
    expect(await stateOf(second.id)).toBe('pending');
    expect(kit.resumed).toEqual([{ requestId: first.id, decision: 'once' }]);
    // The decision is the gate's record: the parked turn's resume finds the command allowed.
    expect(await kit.gate.resume(first.id, { command: 'git reset --hard', cwd: CWD })).toMatchObject({
      kind: 'allow',
    });
  });

  it('approves every pending request with `all`, for the session', async () => {
    const first = await kit.ask('git reset --hard');
    const second = await kit.ask('chmod 777 /srv/project/data');

    expect(await kit.send('/appr session all')).toBe('✅ Approved 2 commands for this session.');
    expect(await kit.gate.outcome(first.id)).toMatchObject({ state: 'approved', scope: 'session' });
    expect(await kit.gate.outcome(second.id)).toMatchObject({ state: 'approved', scope: 'session' });
    expect(kit.resumed).toEqual([
      { requestId: first.id, decision: 'session' },
      { requestId: second.id, decision: 'session' },
    ]);
    // Session scope: the same kind of command no longer asks in this session.
    const again = await kit.gate.check('git reset --hard HEAD~1', {
      sessionKey: SESSION,
      userId: ALICE.userId,
      cwd: CWD,
      platform: 'test',
      unattended: false,
      backend: 'local',
    });
    expect(again.kind).toBe('allow');
  });

  it('approves always and saves the finding to the allowlist in config.yaml', async () => {
    await kit.ask('git reset --hard');
    expect(await kit.send('/approve always')).toBe(
      '✅ Always approved (saved to the allowlist): git reset --hard',
    );
    expect(readFileSync(kit.config.configPath, 'utf8')).toContain('git reset --hard');
  });

  it('reports a request that expired between listing and deciding, and does not resume it', async () => {
    const request = await kit.ask('git reset --hard');
    const late = kit.handlerWith({
      approvals: {
        ...kit.gate,
        listPending: async (key) => {
          const pending = await kit.gate.listPending(key);
          kit.advance(10 * 60_000);
          return pending;
        },
      },
    });
    expect(await kit.send('/approve', ALICE, { handler: late })).toBe(
      'Too late: that request expired, so the command did not run: git reset --hard',
    );
    expect(await stateOf(request.id)).toBe('expired');
    expect(kit.resumed).toEqual([]);
  });

  it('reports a request a button already answered, without changing it', async () => {
    const request = await kit.ask('git reset --hard');
    const clicked = kit.handlerWith({
      approvals: {
        ...kit.gate,
        listPending: async (key) => {
          const pending = await kit.gate.listPending(key);
          await kit.gate.decide(request.id, 'deny', { userId: ALICE.userId });
          return pending;
        },
      },
    });
    expect(await kit.send('/approve', ALICE, { handler: clicked })).toBe(
      'That request was already answered (denied); nothing changed: git reset --hard',
    );
    expect(await stateOf(request.id)).toBe('denied');
    expect(kit.resumed).toEqual([]);
  });

  it('lets only the requesting user or an admin decide', async () => {
    const request = await kit.ask('git reset --hard', ALICE.userId);
    expect(await kit.send('/approve', BOB)).toBe(
      'Only the person who asked for this command, or an admin, can answer it.',
    );
    expect(await stateOf(request.id)).toBe('pending');
    expect(await kit.send('/approve', ADMIN)).toBe('✅ Approved once: git reset --hard');
    expect(await kit.gate.outcome(request.id)).toMatchObject({ decision: { userId: ADMIN.userId } });
  });

  it('summarises mixed outcomes with `all`', async () => {
    await kit.ask('git reset --hard', ALICE.userId);
    await kit.ask('chmod 777 /srv/project/data', BOB.userId);
    await kit.ask('git push --force', BOB.userId);
    expect(await kit.send('/approve all', ALICE)).toBe(
      '✅ Approved 1 command once. Not changed: 2 not yours to answer.',
    );
    expect(await kit.send('/deny all', ALICE)).toBe(
      'Nothing was denied. Not changed: 2 not yours to answer.',
    );
  });

  it('offers only `once` for a command too long to show in full', async () => {
    const long = `git reset --hard ${'x'.repeat(3_100)}`;
    const request = await kit.ask(long);
    expect(request.allowPermanent).toBe(false);
    expect(await kit.send('/approve session')).toMatch(
      /^This command can only be approved once \(send \/approve\)/,
    );
    expect(await stateOf(request.id)).toBe('pending');
    expect(await kit.send('/approve')).toMatch(/^✅ Approved once: git reset --hard x+…$/);
  });

  it('shows usage for arguments it does not know', async () => {
    await kit.ask('git reset --hard');
    expect(await kit.send('/approve forever')).toMatch(/^Usage: \/approve \[session\|always\] \[all\]/);
    expect(await kit.send('/approve session always')).toMatch(/^Usage:/);
    expect(kit.resumed).toEqual([]);
  });

  it('redacts secrets in the command it echoes', async () => {
    await kit.ask('git reset --hard && echo sk-abcdefghijklmnopqrstuvwxyz012345');
    expect(await kit.send('/approve')).toBe('✅ Approved once: git reset --hard && echo [redacted]');
  });
});

describe('/deny', () => {
  it('denies the oldest request and relays the reason to the model', async () => {
    const first = await kit.ask('git reset --hard');
    const second = await kit.ask('chmod 777 /srv/project/data');
    expect(await kit.send('/deny use git stash instead')).toBe(
      '❌ Denied: git reset --hard — the agent is told: "use git stash instead"',
    );
    expect(kit.resumed).toEqual([{ requestId: first.id, decision: 'deny' }]);
    expect(await stateOf(second.id)).toBe('pending');
    const resumed = await kit.gate.resume(first.id, { command: 'git reset --hard', cwd: CWD });
    expect(resumed.kind).toBe('deny');
    expect(resumed.kind === 'deny' && resumed.message).toContain('use git stash instead');
  });

  it('denies all with `all` first or last, keeping the reason', async () => {
    const a = await kit.ask('git reset --hard');
    const b = await kit.ask('chmod 777 /srv/project/data');
    expect(await kit.send('/deny all not today')).toBe('❌ Denied 2 commands.');
    for (const request of [a, b]) {
      const resumed = await kit.gate.resume(request.id, { command: request.command, cwd: CWD });
      expect(resumed.kind === 'deny' && resumed.message).toContain('not today');
    }
    const c = await kit.ask('git push --force');
    const d = await kit.ask('rm -rf ./build');
    expect(await kit.send('/deny wrong branch all')).toBe('❌ Denied 2 commands.');
    for (const request of [c, d]) {
      const resumed = await kit.gate.resume(request.id, { command: request.command, cwd: CWD });
      expect(resumed.kind === 'deny' && resumed.message).toContain('wrong branch');
    }
  });

  it('denies without a reason, and does not mistake a word ending in "all" for `all`', async () => {
    const a = await kit.ask('git reset --hard');
    const b = await kit.ask('chmod 777 /srv/project/data');
    expect(await kit.send('/deny overall')).toBe(
      '❌ Denied: git reset --hard — the agent is told: "overall"',
    );
    expect(await stateOf(b.id)).toBe('pending');
    expect(await kit.send('/deny')).toBe('❌ Denied: chmod 777 /srv/project/data');
    expect(await stateOf(a.id)).toBe('denied');
  });
});

describe('a bare "yes"', () => {
  it('is not a command, so it approves nothing', async () => {
    const request = await kit.ask('git reset --hard');
    await expect(kit.send('yes')).rejects.toThrow('not a command');
    expect(await stateOf(request.id)).toBe('pending');
  });
});

describe('/yolo', () => {
  it('toggles session yolo with clear ON and OFF texts, in the gate and the store', async () => {
    const on = await kit.send('/yolo', ADMIN);
    expect(on).toMatch(/^⚡ YOLO is ON for this chat/);
    expect(on).toContain('Hard-blocked commands and the deny rules still never run');
    expect(await kit.gate.isSessionYolo(SESSION)).toBe(true);
    expect((await kit.store.getOrCreateSession(SESSION)).yolo).toBe(true);
    expect((await kit.gate.check('git reset --hard', ctx())).kind).toBe('allow');

    expect(await kit.send('/yolo', ADMIN)).toBe(
      '🛡 YOLO is OFF for this chat: risky commands ask for your OK again.',
    );
    expect(await kit.gate.isSessionYolo(SESSION)).toBe(false);
    expect((await kit.gate.check('git reset --hard', ctx())).kind).toBe('ask');
  });

  it('takes on/off explicitly and mentions commands already waiting', async () => {
    await kit.ask('git reset --hard');
    expect(await kit.send('/yolo on', ADMIN)).toContain(
      '1 command already waiting still needs /approve or /deny.',
    );
    expect(await kit.send('/yolo on', ADMIN)).toMatch(/^⚡ YOLO is ON/);
    expect(await kit.send('/yolo off', ADMIN)).toMatch(/^🛡 YOLO is OFF/);
    expect(await kit.send('/yolo maybe', ADMIN)).toBe('Usage: /yolo [on|off]');
  });
});

function ctx() {
  return {
    sessionKey: SESSION,
    userId: ALICE.userId,
    cwd: CWD,
    platform: 'test',
    unattended: false,
    backend: 'local' as const,
  };
}
