import { CronExpressionParser } from 'cron-parser';
import { HermesError } from '../../errors/hermes-error.js';
import type { CronScheduleKind } from '../store/cron-store.js';

/**
 * Schedules of scheduled tasks, as people write them:
 *
 *   0 9 * * 1-5          a cron expression (5 fields, or 6 with seconds first; @daily, @hourly…)
 *   every 30m            an interval (s, m, h, d); the first run is right away, then at each
 *                        multiple of the interval (as BullMQ's job schedulers count)
 *   in 2h                once, that long from now
 *   at 18:30             once, the next time the clock in the job's time zone shows it
 *   at 2026-12-24 09:00  once, at that wall time in the job's time zone (or an ISO time with offset)
 */
export interface ParsedSchedule {
  readonly kind: CronScheduleKind;
  /** A cron expression, an interval in ms, or epoch ms (see CronJob.scheduleValue). */
  readonly value: string;
  /** The first time it is due. */
  readonly firstRunAt: number;
}

const UNITS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const DURATION = /^(\d{1,6})\s*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)$/i;

function usage(message: string): HermesError {
  return new HermesError('usage', message);
}

/** Milliseconds of `30m`, `2 hours`…, or undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (match === null) return undefined;
  const unit = UNITS[match[2]!.charAt(0).toLowerCase()]!;
  return Number(match[1]) * unit;
}

/** Throws `usage` unless `timezone` is an IANA zone this runtime knows. */
export function checkTimezone(timezone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return timezone;
  } catch {
    throw usage(
      `unknown time zone "${timezone.slice(0, 64)}" (use an IANA name such as Europe/Berlin or UTC)`,
    );
  }
}

/** Reads a schedule; throws HermesError `usage` with a hint when it is not one. */
export function parseSchedule(
  text: string,
  options: { readonly now: number; readonly timezone: string; readonly minIntervalMs: number },
): ParsedSchedule {
  const { now, timezone, minIntervalMs } = options;
  const trimmed = text.trim().replace(/\s+/g, ' ');
  if (trimmed === '') throw usage('the schedule is empty');
  const lower = trimmed.toLowerCase();
  if (lower.startsWith('every ')) {
    const every = parseDuration(trimmed.slice(6));
    if (every === undefined)
      throw usage(`"${trimmed}": write an interval like "every 30m", "every 2h" or "every 1d"`);
    if (every < minIntervalMs) throw usage(`runs must be at least ${minIntervalMs / 1000} s apart`);
    return { kind: 'every', value: String(every), firstRunAt: now };
  }
  if (lower.startsWith('in ')) {
    const delay = parseDuration(trimmed.slice(3));
    if (delay === undefined || delay <= 0)
      throw usage(`"${trimmed}": write a delay like "in 20m" or "in 2h"`);
    return { kind: 'at', value: String(now + delay), firstRunAt: now + delay };
  }
  if (lower.startsWith('at ') || /^\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}/.test(trimmed)) {
    const at = parseAt(lower.startsWith('at ') ? trimmed.slice(3).trim() : trimmed, now, timezone);
    if (at <= now) throw usage(`"${trimmed}" is in the past`);
    return { kind: 'at', value: String(at), firstRunAt: at };
  }
  const expression = checkCronExpression(trimmed, timezone);
  const first = nextCron(expression, now, timezone);
  const gap = nextCron(expression, first, timezone) - first;
  if (gap < minIntervalMs) throw usage(`runs must be at least ${minIntervalMs / 1000} s apart`);
  return { kind: 'cron', value: expression, firstRunAt: first };
}

function checkCronExpression(expression: string, timezone: string): string {
  const fields = expression.split(' ');
  if (!expression.startsWith('@') && (fields.length < 5 || fields.length > 6)) {
    throw usage(
      `"${expression.slice(0, 80)}" is not a schedule: use a cron expression ("0 9 * * *"), "every 2h", "in 30m" or "at 18:30"`,
    );
  }
  try {
    CronExpressionParser.parse(expression, { tz: timezone });
  } catch (error) {
    throw usage(`"${expression.slice(0, 80)}" is not a valid cron expression: ${(error as Error).message}`);
  }
  return expression;
}

function nextCron(expression: string, after: number, timezone: string): number {
  return CronExpressionParser.parse(expression, { currentDate: new Date(after), tz: timezone })
    .next()
    .getTime();
}

/** `18:30`, `2026-12-24 09:00` (wall time in `timezone`) or an ISO time with an offset. */
function parseAt(text: string, now: number, timezone: string): number {
  const clock = /^(\d{1,2}):(\d{2})$/.exec(text);
  if (clock !== null) {
    const [hour, minute] = [Number(clock[1]), Number(clock[2])];
    if (hour > 23 || minute > 59) throw usage(`"${text}" is not a time of day`);
    return nextCron(`${minute} ${hour} * * *`, now, timezone);
  }
  if (/(?:z|[+-]\d{2}:?\d{2})$/i.test(text)) {
    const at = Date.parse(text);
    if (Number.isNaN(at)) throw usage(`"${text}" is not a date and time`);
    return at;
  }
  const wall = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  if (wall === null) throw usage(`"${text}": write a time like "18:30" or "2026-12-24 09:00"`);
  const [y, mo, d, h, mi, s] = wall.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const guess = Date.UTC(y, mo - 1, d, h, mi, s);
  if (new Date(guess).getUTCDate() !== d || h > 23 || mi > 59)
    throw usage(`"${text}" is not a date and time`);
  // The zone's offset at that moment (checked twice: the first guess may sit across a DST change).
  const first = guess - zoneOffset(guess, timezone);
  return guess - zoneOffset(first, timezone);
}

/** How far the wall clock of `timezone` is ahead of UTC at `at`, in ms. */
function zoneOffset(at: number, timezone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(at));
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(at / 1000) * 1000;
}

/** The first time after `after` the schedule is due, or undefined when it never is again. */
export function nextRunAfter(
  kind: CronScheduleKind,
  value: string,
  after: number,
  timezone: string,
): number | undefined {
  switch (kind) {
    case 'at': {
      const at = Number(value);
      return at > after ? at : undefined;
    }
    case 'every': {
      const every = Number(value);
      return Math.floor(after / every) * every + every;
    }
    case 'cron':
      return nextCron(value, after, timezone);
  }
}

/**
 * Half the time between two runs around `at`: a run that comes sooner than this after the last
 * one is a catch-up of runs missed while nobody was running, and is skipped (missed runs run once).
 */
export function catchUpGapMs(kind: CronScheduleKind, value: string, at: number, timezone: string): number {
  switch (kind) {
    case 'at':
      return 0;
    case 'every':
      return Number(value) / 2;
    case 'cron': {
      const next = nextCron(value, at, timezone);
      return (nextCron(value, next, timezone) - next) / 2;
    }
  }
}

/** A short human description of when a job runs next, in its time zone. */
export function formatTime(at: number, timezone: string): string {
  const text = new Intl.DateTimeFormat('sv-SE', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).format(new Date(at));
  return `${text} ${timezone}`;
}
