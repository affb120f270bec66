import { createDecipheriv, createHash } from 'node:crypto';
import { constantTimeEqual } from '../../lib/constant-time-equal.js';

/**
 * Our own check of a request Feishu/Lark posts to the webhook (events and card callbacks). The
 * SDK's dispatcher is not used for this: it never checks the verification token on events,
 * answers 200 to a bad signature, and throws (crashing a plain server) on a garbage `encrypt`.
 *
 * With an encrypt key: `X-Lark-Signature` = hex sha256(timestamp + nonce + key + raw body),
 * compared in constant time, with the timestamp within the freshness window; the body must be
 * `{"encrypt": …}` (AES-256-CBC, key sha256(encryptKey), IV the first 16 bytes) and decrypt to
 * JSON. Without one: the payload's verification token, compared in constant time. With both,
 * both are checked. A `url_verification` challenge may come unsigned (it is only echoed).
 */

export interface VerifyOptions {
  readonly encryptKey: string | undefined;
  readonly verificationToken: string | undefined;
  /** Largest accepted distance of the request timestamp from now, ms. */
  readonly toleranceMs: number;
  readonly now: number;
}

export type Verified =
  | { readonly ok: true; readonly payload: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly status: 400 | 401; readonly reason: string };

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Decrypts Lark's `encrypt` field; undefined when it is not a valid ciphertext for the key. */
export function decryptLark(encrypt: string, encryptKey: string): string | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encrypt)) return undefined;
  const bytes = Buffer.from(encrypt, 'base64');
  if (bytes.length < 32 || bytes.length % 16 !== 0) return undefined;
  try {
    const key = createHash('sha256').update(encryptKey).digest();
    const decipher = createDecipheriv('aes-256-cbc', key, bytes.subarray(0, 16));
    return Buffer.concat([decipher.update(bytes.subarray(16)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** The verification token a payload carries: `header.token` (v2 events) or `token` (challenge, v1). */
function tokenOf(payload: Readonly<Record<string, unknown>>): string {
  const head = payload['header'];
  if (isRecord(head) && typeof head['token'] === 'string') return head['token'];
  return typeof payload['token'] === 'string' ? payload['token'] : '';
}

function checkSignature(
  headers: Headers,
  body: string,
  encryptKey: string,
  options: VerifyOptions,
): 'signed' | 'unsigned' | string {
  const timestamp = header(headers, 'x-lark-request-timestamp');
  const nonce = header(headers, 'x-lark-request-nonce');
  const signature = header(headers, 'x-lark-signature');
  if (timestamp === undefined && nonce === undefined && signature === undefined) return 'unsigned';
  if (timestamp === undefined || nonce === undefined || signature === undefined) {
    return 'signature headers incomplete';
  }
  const seconds = Number(timestamp);
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(options.now - seconds * 1000) > options.toleranceMs) {
    return 'request timestamp outside the accepted window';
  }
  const expected = createHash('sha256')
    .update(timestamp + nonce + encryptKey + body)
    .digest('hex');
  return constantTimeEqual(signature.toLowerCase(), expected) ? 'signed' : 'signature is wrong';
}

/** Checks one callback request; never throws. */
export function verifyCallback(headers: Headers, rawBody: string, options: VerifyOptions): Verified {
  const { encryptKey, verificationToken } = options;
  if (encryptKey === undefined && verificationToken === undefined) {
    return { ok: false, status: 401, reason: 'no encrypt key or verification token to check against' };
  }
  let signed = false;
  let payload: Record<string, unknown> | undefined;
  if (encryptKey !== undefined) {
    const signature = checkSignature(headers, rawBody, encryptKey, options);
    if (signature !== 'signed' && signature !== 'unsigned') {
      return { ok: false, status: 401, reason: signature };
    }
    signed = signature === 'signed';
    const outer = parseJson(rawBody);
    if (outer === undefined) return { ok: false, status: 400, reason: 'body is not a JSON object' };
    const encrypt = outer['encrypt'];
    if (typeof encrypt !== 'string') {
      return { ok: false, status: 400, reason: 'body is not encrypted although an encrypt key is set' };
    }
    const plain = decryptLark(encrypt, encryptKey);
    payload = plain === undefined ? undefined : parseJson(plain);
    if (payload === undefined) return { ok: false, status: 400, reason: 'body does not decrypt' };
  } else {
    payload = parseJson(rawBody);
    if (payload === undefined) return { ok: false, status: 400, reason: 'body is not a JSON object' };
    if (payload['encrypt'] !== undefined) {
      return { ok: false, status: 400, reason: 'body is encrypted but no encrypt key is set' };
    }
  }
  if (verificationToken !== undefined && !constantTimeEqual(tokenOf(payload), verificationToken)) {
    return { ok: false, status: 401, reason: 'verification token is wrong' };
  }
  // Unsigned requests: only a challenge (echoed, nothing else) when an encrypt key is set; with
  // no key at all, the token above is the only proof and it matched.
  if (encryptKey !== undefined && !signed && payload['type'] !== 'url_verification') {
    return { ok: false, status: 401, reason: 'signature missing' };
  }
  return { ok: true, payload };
}
