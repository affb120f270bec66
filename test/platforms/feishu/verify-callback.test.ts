import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decryptLark, verifyCallback } from '../../../src/platforms/feishu/verify-callback.js';
import { encryptPayload } from '../../fakes/fake-lark.js';

const KEY = 'encrypt-key-for-tests';
const TOKEN = 'verification-token-for-tests';
const NOW = 1_800_000_000_000;
const options = { encryptKey: KEY, verificationToken: TOKEN, toleranceMs: 300_000, now: NOW };

function signed(body: string, timestamp = String(NOW / 1000), nonce = 'n0nce') {
  const signature = createHash('sha256')
    .update(timestamp + nonce + KEY + body)
    .digest('hex');
  return {
    'x-lark-request-timestamp': timestamp,
    'x-lark-request-nonce': nonce,
    'x-lark-signature': signature,
  };
}

const event = (token = TOKEN) => ({
  schema: '2.0',
  header: { event_id: 'e1', event_type: 'x', token },
  event: {},
});

describe('verifyCallback', () => {
  it('accepts a fresh, signed, decryptable event with the right token', () => {
    const body = JSON.stringify({ encrypt: encryptPayload(JSON.stringify(event()), KEY) });
    expect(verifyCallback(signed(body), body, options)).toEqual({ ok: true, payload: event() });
  });

  it('refuses timestamps outside the window on either side, and a tampered body', () => {
    const body = JSON.stringify({ encrypt: encryptPayload(JSON.stringify(event()), KEY) });
    for (const offset of [-301, 301]) {
      const headers = signed(body, String(NOW / 1000 + offset));
      expect(verifyCallback(headers, body, options)).toMatchObject({ ok: false, status: 401 });
    }
    expect(verifyCallback(signed(body), `${body} `, options)).toMatchObject({ ok: false, status: 401 });
  });

  it('never throws and never accepts what was not signed with the key, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.record({
          'x-lark-request-timestamp': fc.oneof(fc.string(), fc.constant(String(NOW / 1000))),
          'x-lark-request-nonce': fc.string(),
          'x-lark-signature': fc.string(),
        }),
        fc.boolean(),
        (body, headers, encryptShape) => {
          const text = encryptShape ? JSON.stringify({ encrypt: body }) : body;
          const result = verifyCallback(headers, text, options);
          expect(result.ok).toBe(false);
          expect(() => decryptLark(body, KEY)).not.toThrow();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('with only a token, compares it and reads plain JSON', () => {
    const tokenOnly = { ...options, encryptKey: undefined };
    expect(verifyCallback({}, JSON.stringify(event()), tokenOnly)).toMatchObject({ ok: true });
    expect(verifyCallback({}, JSON.stringify(event('wrong')), tokenOnly)).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(
      verifyCallback({}, JSON.stringify(event()), { ...tokenOnly, verificationToken: undefined }),
    ).toMatchObject({
      ok: false,
      status: 401,
    });
  });
});
