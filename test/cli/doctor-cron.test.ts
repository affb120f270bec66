import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteGatewayStore } from '../../src/gateway/store/sqlite-gateway-store.js';
import { makeTempHome, silentLogger } from '../helpers/test-config.js';

const bin = resolve(import.meta.dirname, '../../bin/hermes-gateway');

describe('hermes-gateway doctor: scheduled tasks', () => {
  let temp: { home: string; cleanup: () => void };
  beforeEach(() => {
    temp = makeTempHome();
  });
  afterEach(() => temp.cleanup());

  it('counts the tasks and names each whose last delivery failed, with the reason', async () => {
    const store = createSqliteGatewayStore({ path: join(temp.home, 'state.db'), logger: silentLogger });
    const base = {
      sessionKey: 'agent:main:telegram:dm:42',
      createdBy: '42',
      prompt: 'Write the daily report.',
      schedule: '0 9 * * *',
      scheduleKind: 'cron' as const,
      scheduleValue: '0 9 * * *',
      timezone: 'Europe/Berlin',
      nextRunAt: Date.parse('2026-12-03T08:00:00Z'),
    };
    await store.createCronJob({
      ...base,
      id: 'okjob234',
      chat: { platform: 'telegram', chatType: 'dm', chatId: '42' },
      deliver: 'origin',
    });
    await store.createCronJob({
      ...base,
      id: 'badjob23',
      chat: { platform: 'telegram', chatType: 'dm', chatId: '42' },
      deliver: 'home',
    });
    await store.updateCronJob('badjob23', {
      lastRunAt: Date.parse('2026-12-02T08:00:00Z'),
      addRuns: 1,
      delivery: {
        status: 'failed',
        error: 'no home channel is set for telegram: send /sethome',
        at: Date.now(),
      },
    });
    await store.updateCronJob('okjob234', { state: 'paused', nextRunAt: null });
    await store.close();

    const result = spawnSync(bin, ['doctor'], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: '/tmp', HERMES_HOME: temp.home },
      timeout: 60_000,
    });
    expect(result.status).toBe(0);
    const section = result.stdout.slice(result.stdout.indexOf('## Scheduled tasks'));
    expect(section).toContain('2 task(s): 1 active, 1 paused, 0 done; 1 with a failed last delivery');
    expect(section).toContain('no   telegram 42');
    expect(section).toContain('badjob23 — 0 9 * * * (Europe/Berlin), to the home channel');
    expect(section).toContain('⚠️ FAILED: no home channel is set for telegram: send /sethome');
    expect(section).not.toContain('okjob234');
  }, 60_000);
});
