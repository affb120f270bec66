import { beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalStore } from '../../src/approval/approval-store.js';
import type { ApprovalRequest, Finding } from '../../src/approval/approval-types.js';
import { commandHash, randomRequestId } from '../../src/approval/command-hash.js';

/** A clock the test moves by hand; the store judges expiry by it. */
export interface TestClock {
  now: () => number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function testClock(start = 1_700_000_000_000): TestClock {
  let current = start;
  return {
    now: () => current,
    set: (ms) => {
      current = ms;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

export type StoreFactory = (clock: TestClock) => Promise<ApprovalStore>;

const FINDINGS: readonly Finding[] = [
  { key: 'recursive delete', description: 'recursive delete', tier: 'dangerous' },
  { key: 'git force push', description: 'git force push', tier: 'dangerous' },
];
const TIMEOUT_MS = 300_000;

export function makeRequest(
  clock: TestClock,
  overrides: Partial<ApprovalRequest> & { command?: string; cwd?: string } = {},
): ApprovalRequest {
  const command = overrides.command ?? 'rm -rf build';
  const cwd = overrides.cwd ?? '/work';
  const createdAt = overrides.createdAt ?? clock.now();
  return {
    id: randomRequestId(),
    command,
    cwd,
    findings: FINDINGS,
    sessionKey: 'agent:main:telegram:dm:42',
    userId: '42',
    createdAt,
    expiresAt: createdAt + TIMEOUT_MS,
    commandHash: commandHash(command, cwd),
    allowPermanent: true,
    ...overrides,
  };
}

/**
 * The rules every ApprovalStore keeps. Run by the in-memory and the Redis store tests; each
 * test gets a fresh store from the factory (the factory isolates keys and cleans up).
 */
export function describeApprovalStoreConformance(name: string, factory: StoreFactory): void {
  describe(`ApprovalStore conformance: ${name}`, () => {
    let clock: TestClock;
    let store: ApprovalStore;

    beforeEach(async () => {
      clock = testClock();
      store = await factory(clock);
    });

    const decideOnce = (request: ApprovalRequest, userId = '42') =>
      store.decide(request.id, { choice: 'once', userId, decidedAt: clock.now() });

    it('opens a pending request and reports it pending', async () => {
      const request = makeRequest(clock);
      const opened = await store.open(request);
      expect(opened).toEqual({ request, coalesced: false });
      expect(await store.outcome(request.id)).toEqual({ state: 'pending', request });
    });

    it('reports unknown ids as unknown / not_found', async () => {
      expect(await store.outcome('nope')).toEqual({ state: 'unknown' });
      expect(await store.decide('nope', { choice: 'once', userId: '1', decidedAt: clock.now() })).toEqual({
        status: 'not_found',
      });
      expect(await store.claim('nope')).toBe(false);
    });

    it('records the first decision; later ones get the recorded winner', async () => {
      const request = makeRequest(clock);
      await store.open(request);
      const first = await decideOnce(request);
      expect(first.status).toBe('recorded');
      const second = await store.decide(request.id, { choice: 'deny', userId: '7', decidedAt: clock.now() });
      expect(second.status).toBe('already_decided');
      if (second.status !== 'already_decided') return;
      expect(second.outcome).toMatchObject({ state: 'approved', scope: 'once', decision: { userId: '42' } });
      expect(await store.outcome(request.id)).toMatchObject({ state: 'approved', scope: 'once' });
    });

    it('lets exactly one of many concurrent decisions win', async () => {
      const request = makeRequest(clock);
      await store.open(request);
      const choices = ['once', 'deny', 'session', 'always', 'deny', 'once', 'session', 'deny'] as const;
      const results = await Promise.all(
        choices.map((choice, index) =>
          store.decide(request.id, { choice, userId: `u${index}`, decidedAt: clock.now() }),
        ),
      );
      const recorded = results.filter((result) => result.status === 'recorded');
      expect(recorded).toHaveLength(1);
      const winner = await store.outcome(request.id);
      const winnerChoice =
        winner.state === 'approved' ? winner.scope : winner.state === 'denied' ? 'deny' : '';
      for (const result of results) {
        expect(['recorded', 'already_decided']).toContain(result.status);
        if (result.status === 'already_decided') {
          expect(result.outcome).toEqual(winner);
        }
      }
      const winnerIndex = results.findIndex((result) => result.status === 'recorded');
      expect(choices[winnerIndex]).toBe(winnerChoice);
    });

    it('treats expiry as authoritative: a late decision changes nothing', async () => {
      const request = makeRequest(clock);
      await store.open(request);
      clock.set(request.expiresAt); // now == expiresAt already counts as expired
      expect(await store.outcome(request.id)).toEqual({ state: 'expired', request });
      const late = await decideOnce(request);
      expect(late).toEqual({ status: 'expired', outcome: { state: 'expired', request } });
      expect(await store.outcome(request.id)).toEqual({ state: 'expired', request });
      expect(await store.listPending(request.sessionKey)).toEqual([]);
      expect(await store.sessionGrants(request.sessionKey)).toEqual(new Set());
    });

    it('keeps a decision made before expiry after the expiry passes', async () => {
      const request = makeRequest(clock);
      await store.open(request);
      clock.set(request.expiresAt - 1);
      expect(
        (await store.decide(request.id, { choice: 'deny', userId: '42', decidedAt: clock.now() })).status,
      ).toBe('recorded');
      clock.advance(10_000);
      expect(await store.outcome(request.id)).toMatchObject({ state: 'denied', cause: 'user' });
      const again = await decideOnce(request);
      expect(again).toMatchObject({ status: 'already_decided', outcome: { state: 'denied' } });
    });

    it('refuses a decision for a different command hash', async () => {
      const request = makeRequest(clock);
      await store.open(request);
      const other = commandHash('rm -rf /srv', '/work');
      expect(
        await store.decide(request.id, {
          choice: 'once',
          userId: '42',
          decidedAt: clock.now(),
          commandHash: other,
        }),
      ).toEqual({ status: 'hash_mismatch' });
      expect((await store.outcome(request.id)).state).toBe('pending');
      const right = await store.decide(request.id, {
        choice: 'once',
        userId: '42',
        decidedAt: clock.now(),
        commandHash: request.commandHash,
      });
      expect(right.status).toBe('recorded');
    });

    it('refuses session and always when the request allows only once', async () => {
      const request = makeRequest(clock, { allowPermanent: false });
      await store.open(request);
      for (const choice of ['session', 'always'] as const) {
        expect(await store.decide(request.id, { choice, userId: '42', decidedAt: clock.now() })).toEqual({
          status: 'scope_refused',
        });
      }
      expect((await store.outcome(request.id)).state).toBe('pending');
      expect((await decideOnce(request)).status).toBe('recorded');
    });

    it('coalesces an identical request of the same session into the pending one', async () => {
      const leader = makeRequest(clock);
      await store.open(leader);
      clock.advance(1000);
      const follower = makeRequest(clock);
      const joined = await store.open(follower);
      expect(joined).toEqual({ request: leader, coalesced: true });
      expect(await store.outcome(follower.id)).toEqual({ state: 'unknown' });
      expect((await store.listPending(leader.sessionKey)).map((r) => r.id)).toEqual([leader.id]);

      // Another session, another command or another cwd: separate prompts.
      for (const other of [
        makeRequest(clock, { sessionKey: 'agent:main:discord:dm:9' }),
        makeRequest(clock, { command: 'rm -rf dist' }),
        makeRequest(clock, { cwd: '/tmp' }),
      ]) {
        expect((await store.open(other)).coalesced).toBe(false);
      }
    });

    it('opens a fresh request once the pending one is decided or expired', async () => {
      const first = makeRequest(clock);
      await store.open(first);
      await decideOnce(first);
      const second = makeRequest(clock);
      expect(await store.open(second)).toEqual({ request: second, coalesced: false });
      clock.set(second.expiresAt);
      const third = makeRequest(clock);
      expect(await store.open(third)).toEqual({ request: third, coalesced: false });
    });

    it('coalesces concurrent identical opens into exactly one request', async () => {
      const requests = Array.from({ length: 6 }, () => makeRequest(clock));
      const results = await Promise.all(requests.map((request) => store.open(request)));
      expect(results.filter((result) => !result.coalesced)).toHaveLength(1);
      const ids = new Set(results.map((result) => result.request.id));
      expect(ids.size).toBe(1);
      expect(await store.listPending(requests[0]!.sessionKey)).toHaveLength(1);
    });

    it('lists pending requests per session, oldest first, without decided or expired ones', async () => {
      const session = 'agent:main:feishu:group:abc';
      const a = makeRequest(clock, { sessionKey: session, command: 'a' });
      clock.advance(10);
      const b = makeRequest(clock, { sessionKey: session, command: 'b' });
      clock.advance(10);
      const c = makeRequest(clock, { sessionKey: session, command: 'c', expiresAt: clock.now() + 50 });
      const elsewhere = makeRequest(clock, { command: 'a' });
      for (const request of [b, a, c, elsewhere]) await store.open(request);
      expect((await store.listPending(session)).map((r) => r.id)).toEqual([a.id, b.id, c.id]);
      await store.decide(b.id, { choice: 'deny', userId: '42', decidedAt: clock.now() });
      clock.advance(50);
      expect((await store.listPending(session)).map((r) => r.id)).toEqual([a.id]);
      expect((await store.listPending(elsewhere.sessionKey)).map((r) => r.id)).toEqual([elsewhere.id]);
      expect(await store.listPending('no-such-session')).toEqual([]);
    });

    it('cancels as a denial with cause cancelled, keeping the reason', async () => {
      const request = makeRequest(clock);
      await store.open(request);
      const result = await store.decide(request.id, {
        choice: 'deny',
        userId: undefined,
        decidedAt: clock.now(),
        cause: 'cancelled',
        reason: 'turn stopped',
      });
      expect(result).toMatchObject({
        status: 'recorded',
        outcome: { state: 'denied', cause: 'cancelled', decision: { reason: 'turn stopped' } },
      });
      expect(await store.listPending(request.sessionKey)).toEqual([]);
      expect((await decideOnce(request)).status).toBe('already_decided');
    });

    it('relays the reason of a user denial', async () => {
      const request = makeRequest(clock);
      await store.open(request);
      await store.decide(request.id, {
        choice: 'deny',
        userId: '42',
        decidedAt: clock.now(),
        reason: 'not today',
      });
      expect(await store.outcome(request.id)).toMatchObject({
        state: 'denied',
        cause: 'user',
        decision: { choice: 'deny', userId: '42', reason: 'not today' },
      });
    });

    it('grants the finding keys to the session for session and always, not for once', async () => {
      const once = makeRequest(clock, { command: 'one' });
      await store.open(once);
      await decideOnce(once);
      expect(await store.sessionGrants(once.sessionKey)).toEqual(new Set());

      const session = makeRequest(clock, { command: 'two' });
      await store.open(session);
      await store.decide(session.id, { choice: 'session', userId: '42', decidedAt: clock.now() });
      expect(await store.sessionGrants(session.sessionKey)).toEqual(
        new Set(['recursive delete', 'git force push']),
      );

      const always = makeRequest(clock, {
        command: 'three',
        sessionKey: 'other',
        findings: [{ key: 'chmod 777', description: 'chmod 777', tier: 'dangerous' }],
      });
      await store.open(always);
      await store.decide(always.id, { choice: 'always', userId: '42', decidedAt: clock.now() });
      expect(await store.sessionGrants('other')).toEqual(new Set(['chmod 777']));
    });

    it('lets a decided request be claimed exactly once', async () => {
      const request = makeRequest(clock);
      await store.open(request);
      expect(await store.claim(request.id)).toBe(false);
      await decideOnce(request);
      const claims = await Promise.all([
        store.claim(request.id),
        store.claim(request.id),
        store.claim(request.id),
      ]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await store.outcome(request.id)).toMatchObject({ state: 'approved', claimed: true });
    });

    it('switches session yolo on and off', async () => {
      expect(await store.sessionYolo('s1')).toBe(false);
      await store.setSessionYolo('s1', true);
      expect(await store.sessionYolo('s1')).toBe(true);
      expect(await store.sessionYolo('s2')).toBe(false);
      await store.setSessionYolo('s1', false);
      expect(await store.sessionYolo('s1')).toBe(false);
    });

    it('clears a session: grants, yolo and pending requests (cancelled)', async () => {
      const granted = makeRequest(clock, { command: 'x' });
      await store.open(granted);
      await store.decide(granted.id, { choice: 'session', userId: '42', decidedAt: clock.now() });
      await store.setSessionYolo(granted.sessionKey, true);
      const pendingA = makeRequest(clock, { command: 'a' });
      const pendingB = makeRequest(clock, { command: 'b' });
      await store.open(pendingA);
      await store.open(pendingB);
      const other = makeRequest(clock, { sessionKey: 'keep-me', command: 'a' });
      await store.open(other);

      expect(await store.clearSession(granted.sessionKey, clock.now())).toBe(2);
      expect(await store.sessionGrants(granted.sessionKey)).toEqual(new Set());
      expect(await store.sessionYolo(granted.sessionKey)).toBe(false);
      expect(await store.listPending(granted.sessionKey)).toEqual([]);
      expect(await store.outcome(pendingA.id)).toMatchObject({ state: 'denied', cause: 'cancelled' });
      expect((await store.listPending('keep-me')).map((r) => r.id)).toEqual([other.id]);
    });

    it('round-trips every request field', async () => {
      const request = makeRequest(clock, { userId: undefined, allowPermanent: false, smartDenied: true });
      await store.open(request);
      expect(await store.outcome(request.id)).toEqual({ state: 'pending', request });
    });
  });
}
