import { describe, expect, it } from 'vitest';
import { createMemoryApprovalStore } from '../../src/approval/memory-approval-store.js';
import { describeApprovalStoreConformance, makeRequest, testClock } from './approval-store-conformance.js';

describeApprovalStoreConformance('memory', async (clock) => createMemoryApprovalStore({ now: clock.now }));

describe('memory approval store', () => {
  it('forgets requests after their retention period', async () => {
    const clock = testClock();
    const store = createMemoryApprovalStore({ now: clock.now, retentionMs: 60_000 });
    const old = makeRequest(clock, { command: 'old' });
    await store.open(old);
    clock.set(old.expiresAt + 60_000);
    await store.open(makeRequest(clock, { command: 'new' }));
    expect(await store.outcome(old.id)).toEqual({ state: 'unknown' });
  });

  it('forgets session grants and yolo after the session TTL', async () => {
    const clock = testClock();
    const store = createMemoryApprovalStore({ now: clock.now, sessionTtlMs: 1000 });
    const request = makeRequest(clock);
    await store.open(request);
    await store.decide(request.id, { choice: 'session', userId: '42', decidedAt: clock.now() });
    await store.setSessionYolo(request.sessionKey, true);
    clock.advance(1000);
    expect(await store.sessionGrants(request.sessionKey)).toEqual(new Set());
    expect(await store.sessionYolo(request.sessionKey)).toBe(false);
  });
});
