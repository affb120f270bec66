import { describe, expect, it } from 'vitest';
import { statePlaces, stateSection } from '../../src/cli/machine-local-state.js';
import { loadConfig } from '../../src/config/load-config.js';

describe('doctor: where state lives', () => {
  it('without DATABASE_URL and REDIS_URL everything is on this machine, each with its reason', () => {
    const config = loadConfig({ env: {}, home: '/srv/hermes' });
    const places = statePlaces(config);
    expect(places.every((place) => place.where === 'local' && (place.reason ?? '') !== '')).toBe(true);
    expect(places[0]).toMatchObject({
      place: '/srv/hermes/state.db',
      reason: expect.stringMatching(/DATABASE_URL/),
    });
  });

  it('with DATABASE_URL and REDIS_URL the turn state is shared and only machine-bound state stays local', () => {
    const config = loadConfig({
      env: { DATABASE_URL: 'postgres://u:pw-hidden@db:5432/hermes', REDIS_URL: 'redis://r:6379' },
      home: '/srv/hermes',
    });
    const places = statePlaces(config);
    const shared = places.filter((place) => place.where === 'shared').map((place) => place.what);
    expect(shared).toEqual([
      'sessions, transcripts, dedupe, receipts, pairing, parked turns, prompts, home channels, outbox',
      'memory entries',
      'todo lists',
      'queue, session locks, approval decisions, live events',
      'command allowlist entries added by an "always" approval',
      'spilled-over tool results (up to 4096 KB each; larger ones keep only their preview)',
      'chat attachments (up to 10240 KB each, kept 30 days; larger ones are not kept)',
    ]);
    const local = places.filter((place) => place.where === 'local');
    expect(local.map((place) => place.what)).toEqual([
      'command process groups',
      'configuration, secrets and plugins',
    ]);
    expect(local.every((place) => (place.reason ?? '') !== '')).toBe(true);
    const text = stateSection(config);
    expect(text).toContain('## State');
    expect(text).not.toContain('pw-hidden');
  });
});
