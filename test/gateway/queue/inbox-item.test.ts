import { describe, expect, it } from 'vitest';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import { decodeInboxItem, encodeInboxItem, parseInboxItem } from '../../../src/gateway/queue/inbox-item.js';
import { isJsonValue } from '../../../src/lib/is-json-value.js';

const base = {
  sessionKey: 'agent:main:api_server:dm:c1',
  eventId: 'e1',
  kind: 'message',
  receivedAt: 1,
} as const;

describe('isJsonValue', () => {
  it('accepts what JSON round-trips unchanged', () => {
    for (const value of [
      null,
      'x',
      '',
      0,
      -1.5,
      true,
      false,
      [],
      {},
      { a: [1, { b: null }] },
      Object.create(null),
    ]) {
      expect(isJsonValue(value)).toBe(true);
    }
  });

  it('refuses what JSON would change or drop', () => {
    class Point {
      x = 1;
    }
    for (const value of [
      undefined,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      10n,
      () => 1,
      Symbol('s'),
      new Date(0),
      new Map(),
      new Point(),
      { a: undefined },
      [1, undefined],
      { nested: { bad: new Uint8Array(1) } },
    ]) {
      expect(isJsonValue(value)).toBe(false);
    }
  });

  it('refuses cycles and values nested deeper than 64 levels', () => {
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    expect(isJsonValue(cycle)).toBe(false);
    let deep: unknown = 'leaf';
    for (let level = 0; level < 64; level += 1) deep = [deep];
    expect(isJsonValue(deep)).toBe(true);
    expect(isJsonValue([deep])).toBe(false);
  });
});

describe('inbox items', () => {
  it('refuses a payload that is not JSON, naming it', () => {
    let caught: unknown;
    try {
      parseInboxItem({ ...base, payload: { when: new Date(0) } });
    } catch (error) {
      caught = error;
    }
    expect(isHermesError(caught, 'queue_failed')).toBe(true);
    expect(String(caught)).toContain('payload must be JSON');
  });

  it('round-trips through the wire form, with and without a payload', () => {
    for (const item of [
      { ...base },
      { ...base, text: 'hi', payload: { origin: { platform: 'api_server' } } },
    ]) {
      const parsed = parseInboxItem(item);
      expect(decodeInboxItem(encodeInboxItem(parsed))).toEqual(parsed);
    }
  });
});
