import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { constantTimeEqual } from '../../lib/constant-time-equal.js';

/**
 * The three ways a sender proves it knows a route's secret, checked on the raw body bytes, and
 * the same schemes used to sign our result callbacks so the receiver can verify them.
 *
 * - `github`: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`.
 * - `standard` (Standard Webhooks / Svix): `webhook-id`, `webhook-timestamp` (seconds) and
 *   `webhook-signature` holding space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
 *   entries; secrets written `whsec_<base64>` are the base64-decoded key. Signatures are made by
 *   the `standardwebhooks` package (`Webhook.sign`), which signs the body as UTF-8 text: a body
 *   that is not valid UTF-8 (never JSON) does not verify. Its `verify` is not used: it reads the
 *   clock itself, checks the timestamp before the signature (telling a forger our clock) and
 *   knows only the `webhook-*` header names; the checks below keep those three right.
 * - `bearer`: `Authorization: Bearer <secret>`.
 */
export type WebhookAuthScheme = 'github' | 'standard' | 'bearer';

/** Seconds a Standard Webhooks timestamp may differ from our clock. */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

export type VerifyResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'missing' | 'mismatch' | 'stale' | 'malformed' };

/** The HMAC key of a secret: `whsec_<base64>` decodes to bytes; any other secret is its UTF-8. */
export function secretKey(secret: string): Buffer {
  if (secret.startsWith('whsec_')) return Buffer.from(secret.slice('whsec_'.length), 'base64');
  return Buffer.from(secret, 'utf8');
}

/** True when a `whsec_` secret is valid base64 of at least 16 bytes (other secrets: non-empty). */
export function isUsableSecret(secret: string): boolean {
  if (!secret.startsWith('whsec_')) return secret.length > 0;
  const body = secret.slice('whsec_'.length);
  return /^[A-Za-z0-9+/]+={0,2}$/.test(body) && Buffer.from(body, 'base64').length >= 16;
}

/** One header value; a repeated header counts as absent (ambiguous). */
export function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return typeof value === 'string' ? value : undefined;
}

function hmac(key: Buffer, ...parts: (string | Buffer)[]): Buffer {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

export function githubSignature(secret: string, body: Buffer): string {
  return `sha256=${hmac(secretKey(secret), body).toString('hex')}`;
}

/** `v1,<base64>` over `id.timestamp.body` (timestamp in seconds, as in the header). */
export function standardSignature(secret: string, id: string, timestamp: string, body: Buffer): string {
  return new Webhook(secretKey(secret), { format: 'raw' }).sign(id, new Date(Number(timestamp) * 1000), body);
}

export function bearerMatchesSecret(authorization: string | undefined, secret: string): boolean {
  if (authorization === undefined) return false;
  const match = /^Bearer\s+(\S.*)$/i.exec(authorization.trim());
  if (match === null) return false;
  return constantTimeEqual(Buffer.from(match[1] ?? '', 'utf8'), Buffer.from(secret, 'utf8'));
}

function verifyGithub(headers: HeaderBag, body: Buffer, secret: string): VerifyResult {
  const given = header(headers, 'x-hub-signature-256');
  if (given === undefined) return { ok: false, reason: 'missing' };
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(given.trim());
  if (match === null) return { ok: false, reason: 'malformed' };
  const expected = hmac(secretKey(secret), body);
  return constantTimeEqual(Buffer.from(match[1]!.toLowerCase(), 'hex'), expected)
    ? { ok: true }
    : { ok: false, reason: 'mismatch' };
}

function verifyStandard(headers: HeaderBag, body: Buffer, secret: string, nowMs: number): VerifyResult {
  // Svix sends the same scheme under `svix-*` names.
  const id = header(headers, 'webhook-id') ?? header(headers, 'svix-id');
  const timestamp = header(headers, 'webhook-timestamp') ?? header(headers, 'svix-timestamp');
  const signatures = header(headers, 'webhook-signature') ?? header(headers, 'svix-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    return { ok: false, reason: 'missing' };
  }
  if (!/^\d{1,12}$/.test(timestamp) || id.length === 0 || id.length > 256) {
    return { ok: false, reason: 'malformed' };
  }
  const expected = Buffer.from(standardSignature(secret, id, timestamp, body).slice('v1,'.length), 'base64');
  let matched = false;
  for (const entry of signatures.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    // Compare every entry (no early exit) so the time taken does not say which one matched.
    if (constantTimeEqual(Buffer.from(entry.slice(comma + 1), 'base64'), expected)) matched = true;
  }
  if (!matched) return { ok: false, reason: 'mismatch' };
  // Checked after the signature, so a forged request learns nothing about our clock.
  const skew = Math.abs(nowMs / 1000 - Number(timestamp));
  return skew > TIMESTAMP_TOLERANCE_SECONDS ? { ok: false, reason: 'stale' } : { ok: true };
}

/** Checks a request's proof of the route's secret over the raw body bytes. */
export function verifyWebhookRequest(input: {
  readonly scheme: WebhookAuthScheme;
  readonly secret: string;
  readonly headers: HeaderBag;
  readonly body: Buffer;
  readonly nowMs: number;
}): VerifyResult {
  switch (input.scheme) {
    case 'github':
      return verifyGithub(input.headers, input.body, input.secret);
    case 'standard':
      return verifyStandard(input.headers, input.body, input.secret, input.nowMs);
    case 'bearer':
      return bearerMatchesSecret(header(input.headers, 'authorization'), input.secret)
        ? { ok: true }
        : {
            ok: false,
            reason: header(input.headers, 'authorization') === undefined ? 'missing' : 'mismatch',
          };
  }
}

/** Headers that sign an outbound body with the route's scheme and secret. */
export function signingHeaders(input: {
  readonly scheme: WebhookAuthScheme;
  readonly secret: string;
  readonly body: Buffer;
  /** Standard Webhooks message id (the same on every retry, so the receiver can dedupe). */
  readonly messageId: string;
  readonly nowMs: number;
}): Record<string, string> {
  switch (input.scheme) {
    case 'github':
      return { 'x-hub-signature-256': githubSignature(input.secret, input.body) };
    case 'standard': {
      const timestamp = String(Math.floor(input.nowMs / 1000));
      return {
        'webhook-id': input.messageId,
        'webhook-timestamp': timestamp,
        'webhook-signature': standardSignature(input.secret, input.messageId, timestamp, input.body),
      };
    }
    case 'bearer':
      return { authorization: `Bearer ${input.secret}` };
  }
}
