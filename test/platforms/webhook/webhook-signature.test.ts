import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  bearerMatchesSecret,
  isUsableSecret,
  secretKey,
  signingHeaders,
  standardSignature,
  verifyWebhookRequest,
} from '../../../src/platforms/webhook/webhook-signature.js';

const body = Buffer.from('{"hello":"world"}');
const NOW = 1_700_000_000_000;

describe('github scheme', () => {
  const secret = 'It is a secret';
  const good = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const verify = (headers: Record<string, string>, raw = body) =>
    verifyWebhookRequest({ scheme: 'github', secret, headers, body: raw, nowMs: NOW });

  it('accepts the hex HMAC of the raw body, in either case', () => {
    expect(verify({ 'x-hub-signature-256': good })).toEqual({ ok: true });
    expect(verify({ 'x-hub-signature-256': good.toUpperCase().replace('SHA256', 'sha256') })).toEqual({
      ok: true,
    });
  });

  it('refuses a tampered body, a missing header and a malformed one', () => {
    expect(verify({ 'x-hub-signature-256': good }, Buffer.from('{"hello":"World"}'))).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(verify({})).toEqual({ ok: false, reason: 'missing' });
    expect(verify({ 'x-hub-signature-256': 'sha1=abc' })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('produces signing headers a GitHub-style receiver accepts', () => {
    const headers = signingHeaders({ scheme: 'github', secret, body, messageId: 'm', nowMs: NOW });
    expect(headers['x-hub-signature-256']).toBe(good);
  });
});

describe('standard webhooks scheme', () => {
  it('matches the example of the Standard Webhooks specification', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const signature = standardSignature(
      secret,
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      '1614265330',
      Buffer.from('{"test": 2432232314}'),
    );
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
  const stamp = String(NOW / 1000);
  const headersFor = (timestamp = stamp, id = 'msg_1') => ({
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': standardSignature(secret, id, timestamp, body),
  });
  const verify = (headers: Record<string, string>, nowMs = NOW) =>
    verifyWebhookRequest({ scheme: 'standard', secret, headers, body, nowMs });

  it('accepts a fresh signature and any matching entry of several', () => {
    expect(verify(headersFor())).toEqual({ ok: true });
    const several = headersFor();
    several['webhook-signature'] =
      `v2,abc v1,${Buffer.alloc(32).toString('base64')} ${several['webhook-signature']}`;
    expect(verify(several)).toEqual({ ok: true });
  });

  it('accepts the svix-* header names too', () => {
    const standard = headersFor();
    expect(
      verify({
        'svix-id': standard['webhook-id'],
        'svix-timestamp': standard['webhook-timestamp'],
        'svix-signature': standard['webhook-signature'],
      }),
    ).toEqual({ ok: true });
  });

  it('keeps a ±5 minute window', () => {
    expect(verify(headersFor(), NOW + 299_000)).toEqual({ ok: true });
    expect(verify(headersFor(), NOW + 301_000)).toEqual({ ok: false, reason: 'stale' });
    expect(verify(headersFor(), NOW - 301_000)).toEqual({ ok: false, reason: 'stale' });
  });

  it('refuses a changed id or timestamp, missing headers and a non-numeric timestamp', () => {
    const changed = { ...headersFor(), 'webhook-id': 'msg_2' };
    expect(verify(changed)).toEqual({ ok: false, reason: 'mismatch' });
    const moved = { ...headersFor(), 'webhook-timestamp': String(NOW / 1000 + 1) };
    expect(verify(moved)).toEqual({ ok: false, reason: 'mismatch' });
    expect(verify({ 'webhook-id': 'x' })).toEqual({ ok: false, reason: 'missing' });
    expect(verify({ ...headersFor(), 'webhook-timestamp': 'soon' })).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });

  it('signs the body as UTF-8 text (the standardwebhooks package): a body that is not UTF-8 does not verify', () => {
    const raw = Buffer.from([0x7b, 0xff, 0x7d]);
    const id = 'msg_bin';
    const overBytes = `v1,${createHmac('sha256', secretKey(secret)).update(`${id}.${stamp}.`).update(raw).digest('base64')}`;
    const headers = { 'webhook-id': id, 'webhook-timestamp': stamp, 'webhook-signature': overBytes };
    expect(verifyWebhookRequest({ scheme: 'standard', secret, headers, body: raw, nowMs: NOW })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    // Valid UTF-8 signs the same either way.
    const text = Buffer.from('{"név":"ünïcödé ✓"}');
    const overText = `v1,${createHmac('sha256', secretKey(secret)).update(`${id}.${stamp}.`).update(text).digest('base64')}`;
    expect(standardSignature(secret, id, stamp, text)).toBe(overText);
  });

  it('signs callbacks with a fresh timestamp and the given message id', () => {
    const headers = signingHeaders({ scheme: 'standard', secret, body, messageId: 'run_1', nowMs: NOW });
    expect(headers['webhook-id']).toBe('run_1');
    expect(verify(headers)).toEqual({ ok: true });
  });
});

describe('bearer scheme and secrets', () => {
  it('compares the bearer token exactly', () => {
    expect(bearerMatchesSecret('Bearer s3cret-value', 's3cret-value')).toBe(true);
    expect(bearerMatchesSecret('bearer   s3cret-value', 's3cret-value')).toBe(true);
    expect(bearerMatchesSecret('Bearer s3cret-valu', 's3cret-value')).toBe(false);
    expect(bearerMatchesSecret('Basic s3cret-value', 's3cret-value')).toBe(false);
    expect(bearerMatchesSecret(undefined, 's3cret-value')).toBe(false);
    expect(verifyWebhookRequest({ scheme: 'bearer', secret: 'abc', headers: {}, body, nowMs: NOW })).toEqual({
      ok: false,
      reason: 'missing',
    });
  });

  it('decodes whsec_ secrets and checks them', () => {
    expect(secretKey('whsec_AAEC').equals(Buffer.from([0, 1, 2]))).toBe(true);
    expect(secretKey('plain').toString()).toBe('plain');
    expect(isUsableSecret('whsec_AAEC')).toBe(false); // 3 bytes: too short
    expect(isUsableSecret(`whsec_${Buffer.alloc(24).toString('base64')}`)).toBe(true);
    expect(isUsableSecret('whsec_not base64!')).toBe(false);
    expect(isUsableSecret('anything')).toBe(true);
  });
});
