import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createSetupRetry } from '../../../src/platforms/shared/setup-retry.js';
import { waitFor } from '../../gateway/e2e/gateway-kit.js';

function setupWith(failures: number) {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  let calls = 0;
  const setup = createSetupRetry({
    logger,
    what: 'demo',
    backoffMs: 5,
    describeError: (error) => (error as Error).message,
    setup: async () => {
      calls += 1;
      if (calls <= failures) throw new Error('platform unreachable');
    },
  });
  return { setup, lines, calls: () => calls };
}

describe('createSetupRetry', () => {
  it('records the problem of a failed attempt in health, logs it once, and sets up once it works', async () => {
    const { setup, lines, calls } = setupWith(2);
    expect(setup.health(false)).toEqual({ ok: false, reason: 'not started' });
    expect(await setup.attempt()).toBe(false);
    expect(await setup.attempt()).toBe(false);
    expect(setup.health(true)).toEqual({ ok: false, reason: 'demo set-up failed: platform unreachable' });
    expect(lines.filter((line) => line.includes('demo set-up failed'))).toHaveLength(1);
    expect(await setup.attempt()).toBe(true);
    expect(await setup.attempt()).toBe(true);
    expect(calls()).toBe(3);
    expect(setup.health(true)).toEqual({ ok: true });
  });

  it('keeps trying in the background until it works', async () => {
    const { setup, calls } = setupWith(3);
    expect(await setup.attempt()).toBe(false);
    setup.retryInBackground();
    setup.retryInBackground(); // one background loop at a time
    await waitFor(() => setup.health(true).ok);
    expect(calls()).toBe(4);
  });

  it('stop() ends background attempts, and the next attempt sets up again', async () => {
    let calls = 0;
    let release: (() => void) | undefined;
    const setup = createSetupRetry({
      logger: pino({ level: 'silent' }),
      what: 'demo',
      backoffMs: 1,
      describeError: (error) => (error as Error).message,
      setup: async () => {
        calls += 1;
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        throw new Error('platform unreachable');
      },
    });
    setup.retryInBackground();
    await waitFor(() => calls === 1);
    setup.stop();
    release?.();
    // The failed attempt's backoff ends at once on stop, and no attempt follows.
    for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(1);
    const next = setup.attempt();
    await waitFor(() => calls === 2);
    release?.();
    expect(await next).toBe(false);
  });

  it('report() shows a later problem and its end', async () => {
    const { setup } = setupWith(0);
    expect(await setup.attempt()).toBe(true);
    setup.report('polling failed; retrying');
    expect(setup.health(true)).toEqual({ ok: false, reason: 'polling failed; retrying' });
    setup.report(undefined);
    expect(setup.health(true)).toEqual({ ok: true });
  });
});
