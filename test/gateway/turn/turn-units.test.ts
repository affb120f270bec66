import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../../src/gateway/store/gateway-store.js';
import { retryAfterOf } from '../../../src/gateway/turn/classify-model-error.js';
import { decodeMarker, encodeMarker, markerOf, turnOf } from '../../../src/gateway/turn/message-marker.js';
import { OutcomeLatch } from '../../../src/gateway/turn/outcome-latch.js';
import { parseTurnOrigin } from '../../../src/gateway/turn/turn-origin.js';
import { turnSegments } from '../../../src/gateway/turn/turn-segments.js';
import { message, ORIGIN, recordEvents } from './turn-test-kit.js';

describe('turn segments', () => {
  it('splits messages and resumes in arrival order with stable turn ids', () => {
    const resume = { ...message('r', ''), kind: 'resume' as const, payload: { turnId: 'old' } };
    const segments = turnSegments({
      turnId: 'T',
      items: [message('a', '1'), resume, message('b', '2'), message('c', '3')],
    });
    expect(
      segments.map((s) => (s.kind === 'messages' ? [s.turnId, s.items.map((i) => i.eventId)] : 'resume')),
    ).toEqual([['T', ['a']], 'resume', ['T.2', ['b', 'c']]]);
  });
});

describe('message marker', () => {
  it('round-trips turn and event ids with odd characters', () => {
    const marker = { turnId: 'a;b&c=d', eventId: 'tg:1 2' };
    expect(decodeMarker(encodeMarker(marker))).toEqual(marker);
    expect(decodeMarker(encodeMarker({ turnId: 't' }))).toEqual({ turnId: 't' });
    expect(decodeMarker('terminal')).toBeUndefined();
    expect(decodeMarker(undefined)).toBeUndefined();
  });

  it('markerOf and turnOf read a stored message like decodeMarker; tool messages belong to no turn', () => {
    const stored = (role: StoredMessage['role'], name: string | undefined): StoredMessage => ({
      sessionId: 's',
      seq: 1,
      role,
      content: 'x',
      toolCalls: undefined,
      toolCallId: undefined,
      name,
      promptTokens: undefined,
      completionTokens: undefined,
      createdAt: 0,
    });
    const user = stored('user', encodeMarker({ turnId: 't1', eventId: 'e1' }));
    expect(markerOf(user)).toEqual({ turnId: 't1', eventId: 'e1' });
    expect(markerOf(user)).toBe(markerOf(user));
    expect(turnOf(user)).toBe('t1');
    expect(markerOf(stored('assistant', undefined))).toBeUndefined();
    expect(turnOf(stored('tool', encodeMarker({ turnId: 't1' })))).toBeUndefined();
  });
});

describe('origin', () => {
  it('accepts a full origin and explains a bad one', () => {
    expect(parseTurnOrigin({ ...ORIGIN, images: [{ url: 'data:image/png;base64,AAAA' }] }).ok).toBe(true);
    const bad = parseTurnOrigin({ ...ORIGIN, chatType: 'room', extra: 1 });
    expect(bad.ok).toBe(false);
    expect(bad.ok ? '' : bad.problem).toMatch(/chatType/);
    expect(parseTurnOrigin({ ...ORIGIN, images: [{ url: 'file:///etc/passwd' }] }).ok).toBe(false);
  });
});

describe('outcome latch', () => {
  it('lets one terminal event out and refuses a second', async () => {
    const rec = recordEvents();
    const latch = new OutcomeLatch(rec.events);
    await latch.final({ turnId: 't', sessionKey: 's', origin: ORIGIN, text: 'a' });
    await expect(
      latch.failed({ turnId: 't', sessionKey: 's', origin: ORIGIN, code: 'internal', message: 'x' }),
    ).rejects.toThrow(/tried to end twice/);
    await latch.ensure(() => ({
      turnId: 't',
      sessionKey: 's',
      origin: undefined,
      code: 'internal',
      message: 'x',
    }));
    expect(rec.terminal().map((entry) => entry.type)).toEqual(['final']);
  });

  it('sends the fallback when nothing was emitted', async () => {
    const rec = recordEvents();
    await new OutcomeLatch(rec.events).ensure(() => ({
      turnId: 't',
      sessionKey: 's',
      origin: undefined,
      code: 'internal',
      message: 'x',
    }));
    expect(rec.failures().map((event) => event.code)).toEqual(['internal']);
  });
});

describe('retry-after', () => {
  it('reads milliseconds, seconds and HTTP dates', () => {
    expect(retryAfterOf(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterOf(new Headers({ 'retry-after': '2' }))).toBe(2_000);
    expect(retryAfterOf(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4_000)).toBe(6_000);
    expect(retryAfterOf(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterOf(undefined)).toBeUndefined();
  });
});
