import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { larkIds } from './lark-ids.js';

/**
 * The HTTP request Lark sends to an event or card callback URL. With an encrypt key the payload
 * is encrypted (AES-256-CBC, key = sha256(encryptKey), a random 16-byte IV in front, base64) into
 * `{"encrypt": …}`, and the request is signed: `X-Lark-Signature` = hex sha256(timestamp + nonce +
 * encryptKey + body), with `X-Lark-Request-Timestamp` (seconds) and `X-Lark-Request-Nonce`.
 * Without one the payload goes in plain text and only its `token` vouches for it.
 */

export interface CallbackRequest {
  /** Header names in lower case, as a Node server sees them. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Deliberately broken requests, for the checks an adapter must make itself. */
export type CallbackVariant =
  | 'valid'
  /** Signature headers present, signature wrong. */
  | 'wrong-signature'
  /** Encrypted body, no signature headers. */
  | 'missing-signature'
  /** The payload's verification token is not the app's. */
  | 'wrong-token'
  /** Correctly signed, but the timestamp is an hour old (a replay). */
  | 'stale-timestamp'
  /** Correctly signed `{"encrypt": …}` whose ciphertext does not decrypt (bad padding). */
  | 'garbage-encrypt'
  /** Correctly signed `{"encrypt": …}` that is not base64 at all. */
  | 'not-base64-encrypt'
  /** Encrypted and signed with another key. */
  | 'wrong-key'
  /** Correctly signed, but the payload is in plain text although the app has an encrypt key. */
  | 'unencrypted'
  /** Correctly signed body cut in half: not JSON. */
  | 'truncated-json';

export interface CallbackOptions {
  /** Encrypt and sign (Lark does both when the app has an encrypt key). */
  readonly encryptKey?: string;
  readonly variant?: CallbackVariant;
  /** Seconds; default now. */
  readonly timestamp?: number;
  readonly nonce?: string;
}

const aesKey = (encryptKey: string): Buffer => createHash('sha256').update(encryptKey).digest();

export function encryptPayload(plaintext: string, encryptKey: string, iv: Buffer = randomBytes(16)): string {
  const cipher = createCipheriv('aes-256-cbc', aesKey(encryptKey), iv);
  return Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final()]).toString('base64');
}

/** Throws on a wrong key or damaged ciphertext. */
export function decryptPayload(encrypt: string, encryptKey: string): string {
  const bytes = Buffer.from(encrypt, 'base64');
  const decipher = createDecipheriv('aes-256-cbc', aesKey(encryptKey), bytes.subarray(0, 16));
  return Buffer.concat([decipher.update(bytes.subarray(16)), decipher.final()]).toString('utf8');
}

export function larkSignature(timestamp: string, nonce: string, encryptKey: string, body: string): string {
  return createHash('sha256')
    .update(timestamp + nonce + encryptKey + body)
    .digest('hex');
}

function withWrongToken(payload: object): object {
  const copy: Record<string, unknown> = JSON.parse(JSON.stringify(payload));
  const header = copy['header'];
  if (typeof header === 'object' && header !== null && !Array.isArray(header)) {
    copy['header'] = { ...header, token: 'not-the-verification-token' };
  } else {
    copy['token'] = 'not-the-verification-token';
  }
  return copy;
}

/** A ciphertext that is valid base64 of the right block size but fails PKCS#7 unpadding. */
function undecryptable(encryptKey: string): string {
  const iv = randomBytes(16);
  for (;;) {
    const block = randomBytes(32);
    const decipher = createDecipheriv('aes-256-cbc', aesKey(encryptKey), iv);
    try {
      Buffer.concat([decipher.update(block), decipher.final()]);
    } catch {
      return Buffer.concat([iv, block]).toString('base64');
    }
  }
}

export function buildCallbackRequest(payload: object, options: CallbackOptions = {}): CallbackRequest {
  const variant = options.variant ?? 'valid';
  const key = options.encryptKey;
  const content = variant === 'wrong-token' ? withWrongToken(payload) : payload;
  const plaintext = JSON.stringify(content);
  let body: string;
  if (key === undefined || variant === 'unencrypted') {
    body = plaintext;
  } else if (variant === 'garbage-encrypt') {
    body = JSON.stringify({ encrypt: undecryptable(key) });
  } else if (variant === 'not-base64-encrypt') {
    body = JSON.stringify({ encrypt: '%%% not base64, not a ciphertext %%%' });
  } else {
    body = JSON.stringify({
      encrypt: encryptPayload(plaintext, variant === 'wrong-key' ? `${key}-other` : key),
    });
  }
  if (variant === 'truncated-json') body = body.slice(0, Math.floor(body.length / 2));
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (key === undefined || variant === 'missing-signature') return { headers, body };
  const now = Math.floor(Date.now() / 1000);
  const timestamp = String(variant === 'stale-timestamp' ? now - 3600 : (options.timestamp ?? now));
  const nonce = options.nonce ?? larkIds.nonce();
  const signingKey = variant === 'wrong-key' ? `${key}-other` : key;
  let signature = larkSignature(timestamp, nonce, signingKey, body);
  if (variant === 'wrong-signature')
    signature = `${signature.slice(0, -4)}${signature.endsWith('0000') ? '1111' : '0000'}`;
  headers['x-lark-request-timestamp'] = timestamp;
  headers['x-lark-request-nonce'] = nonce;
  headers['x-lark-signature'] = signature;
  return { headers, body };
}

export interface CallbackResponse {
  readonly status: number;
  readonly text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  readonly json: unknown;
}

/** POSTs a built request the way Lark would. */
export async function postCallback(url: string, request: CallbackRequest): Promise<CallbackResponse> {
  const response = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}
