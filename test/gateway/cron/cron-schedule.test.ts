import { describe, expect, it } from 'vitest';
import {
  catchUpGapMs,
  checkTimezone,
  formatTime,
  nextRunAfter,
  parseDuration,
  parseSchedule,
} from '../../../src/gateway/cron/cron-schedule.js';

const NOW = Date.parse('2026-12-02T10:00:00Z');
const base = { now: NOW, timezone: 'UTC', minIntervalMs: 60_000 };

describe('parseSchedule', () => {
  it('reads a cron expression in the job time zone', () => {
    const berlin = parseSchedule('0 9 * * *', { ...base, timezone: 'Europe/Berlin' });
    expect(berlin).toEqual({
      kind: 'cron',
      value: '0 9 * * *',
      firstRunAt: Date.parse('2026-12-03T08:00:00Z'),
    });
    const utc = parseSchedule('0 9 * * *', base);
    expect(utc.firstRunAt).toBe(Date.parse('2026-12-03T09:00:00Z'));
    expect(parseSchedule('@hourly', base).firstRunAt).toBe(Date.parse('2026-12-02T11:00:00Z'));
    expect(nextRunAfter('cron', '0 9 * * 1-5', Date.parse('2026-12-04T09:00:00Z'), 'UTC')).toBe(
      Date.parse('2026-12-07T09:00:00Z'),
    );
  });

  it('reads intervals: first run at once, then at each multiple of the interval', () => {
    const every = parseSchedule('every 2h', base);
    expect(every).toEqual({ kind: 'every', value: String(7_200_000), firstRunAt: NOW });
    expect(nextRunAfter('every', every.value, NOW, 'UTC')).toBe(Date.parse('2026-12-02T12:00:00Z'));
    expect(nextRunAfter('every', every.value, NOW + 1, 'UTC')).toBe(Date.parse('2026-12-02T12:00:00Z'));
    expect(parseDuration('30 minutes')).toBe(1_800_000);
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(parseDuration('soon')).toBeUndefined();
  });

  it('reads one-shots: in, at a clock time, at a wall time in the zone, at an ISO time', () => {
    expect(parseSchedule('in 20m', base)).toEqual({
      kind: 'at',
      value: String(NOW + 1_200_000),
      firstRunAt: NOW + 1_200_000,
    });
    expect(parseSchedule('at 18:30', base).firstRunAt).toBe(Date.parse('2026-12-02T18:30:00Z'));
    expect(parseSchedule('at 09:00', base).firstRunAt).toBe(Date.parse('2026-12-03T09:00:00Z'));
    const tokyo = parseSchedule('at 2026-12-24 09:00', { ...base, timezone: 'Asia/Tokyo' });
    expect(tokyo.firstRunAt).toBe(Date.parse('2026-12-24T00:00:00Z'));
    // New York in summer (UTC-4) and winter (UTC-5).
    expect(parseSchedule('at 2027-07-01 12:00', { ...base, timezone: 'America/New_York' }).firstRunAt).toBe(
      Date.parse('2027-07-01T16:00:00Z'),
    );
    expect(parseSchedule('2026-12-24T09:00:00+01:00', base).firstRunAt).toBe(
      Date.parse('2026-12-24T08:00:00Z'),
    );
    expect(nextRunAfter('at', String(NOW + 5), NOW + 5, 'UTC')).toBeUndefined();
  });

  it('refuses what it cannot read, the past, and runs closer than the minimum', () => {
    expect(() => parseSchedule('tomorrow-ish', base)).toThrow(/not a schedule/);
    expect(() => parseSchedule('61 * * * *', base)).toThrow(/not a valid cron expression/);
    expect(() => parseSchedule('every 10s', base)).toThrow(/at least 60 s apart/);
    expect(() => parseSchedule('* * * * * *', base)).toThrow(/at least 60 s apart/);
    expect(() => parseSchedule('at 2020-01-01 09:00', base)).toThrow(/in the past/);
    expect(() => parseSchedule('at 25:00', base)).toThrow(/not a time of day/);
    expect(() => parseSchedule('every often', base)).toThrow(/write an interval/);
    expect(() => checkTimezone('Mars/Olympus')).toThrow(/unknown time zone/);
    expect(parseSchedule('every 10s', { ...base, minIntervalMs: 1_000 }).kind).toBe('every');
  });

  it('measures the catch-up gap as half the time between runs', () => {
    expect(catchUpGapMs('every', '600000', NOW, 'UTC')).toBe(300_000);
    expect(catchUpGapMs('cron', '0 9 * * *', NOW, 'UTC')).toBe(43_200_000);
    expect(catchUpGapMs('at', String(NOW), NOW, 'UTC')).toBe(0);
    expect(formatTime(Date.parse('2026-12-24T00:00:00Z'), 'Asia/Tokyo')).toBe('2026-12-24 09:00 Asia/Tokyo');
  });
});
