import { describe, expect, it } from 'vitest';
import { deliveryIdOf } from '../../../src/platforms/webhook/delivery-id.js';
import {
  createWebhookRuns,
  describeRun,
  type WebhookRun,
} from '../../../src/platforms/webhook/webhook-runs.js';

function run(runId: string, createdAt: number): WebhookRun {
  return {
    runId,
    route: 'r',
    deliveryId: 'd',
    sessionKey: 'agent:main:webhook:webhook:webhook:r:d:webhook:r',
    createdAt,
    updatedAt: createdAt,
    status: 'queued',
    delivery: { status: 'pending' },
  };
}

describe('createWebhookRuns', () => {
  it('keeps at most maxRuns records, dropping the oldest', () => {
    const runs = createWebhookRuns({ maxRuns: 3, ttlMs: 60_000, now: () => 1_000 });
    for (let i = 0; i < 5; i += 1) runs.add(run(`run_${i}`, 1_000));
    expect(runs.size()).toBe(3);
    expect(runs.get('run_0')).toBeUndefined();
    expect(runs.get('run_4')?.status).toBe('queued');
  });

  it('forgets records older than the TTL', () => {
    let at = 1_000;
    const runs = createWebhookRuns({ maxRuns: 10, ttlMs: 60_000, now: () => at });
    runs.add(run('run_a', at));
    at += 30_000;
    runs.add(run('run_b', at));
    at += 31_000;
    expect(runs.get('run_a')).toBeUndefined();
    expect(runs.get('run_b')).toBeDefined();
  });

  it('updates a kept run and describes it', () => {
    const runs = createWebhookRuns({ maxRuns: 10, ttlMs: 60_000, now: () => 5_000 });
    runs.add(run('run_x', 1_000));
    runs.update('run_x', (record) => {
      record.status = 'done';
      record.result = 'ok';
    });
    runs.update('run_missing', () => {
      throw new Error('must not be called');
    });
    expect(describeRun(runs.get('run_x')!)).toMatchObject({
      run_id: 'run_x',
      status: 'done',
      result: 'ok',
      delivery: { status: 'pending' },
      updated_at: new Date(5_000).toISOString(),
    });
  });
});

describe('deliveryIdOf', () => {
  const body = Buffer.from('{"a":1}');
  it('takes the sender id of the scheme, else Idempotency-Key / X-Request-ID, else a body hash', () => {
    expect(deliveryIdOf('github', { 'x-github-delivery': 'abc-123' }, body)).toBe('abc-123');
    expect(deliveryIdOf('standard', { 'webhook-id': 'msg_1' }, body)).toBe('msg_1');
    expect(deliveryIdOf('bearer', { 'x-github-delivery': 'abc' }, body)).toMatch(/^body-/);
    expect(deliveryIdOf('bearer', { 'idempotency-key': 'k1' }, body)).toBe('k1');
    expect(deliveryIdOf('bearer', { 'x-request-id': 'r1' }, body)).toBe('r1');
    expect(deliveryIdOf('bearer', {}, body)).toBe(deliveryIdOf('bearer', {}, Buffer.from('{"a":1}')));
    expect(deliveryIdOf('bearer', {}, body)).not.toBe(deliveryIdOf('bearer', {}, Buffer.from('{"a":2}')));
  });

  it('hashes ids that are not safe session-key tokens', () => {
    expect(deliveryIdOf('github', { 'x-github-delivery': 'a:b/../c' }, body)).toMatch(/^id-[0-9a-f]{32}$/);
    expect(deliveryIdOf('github', { 'x-github-delivery': 'x'.repeat(200) }, body)).toMatch(/^id-/);
  });
});
