import { createHash } from 'node:crypto';
import { type HeaderBag, header, type WebhookAuthScheme } from './webhook-signature.js';

const SAFE_ID = /^[A-Za-z0-9_.@+=~-]{1,64}$/;

/**
 * The id that makes a delivery unique, for dedupe and for its session key: the sender's own
 * delivery id (`X-GitHub-Delivery`, Standard Webhooks `webhook-id` / `svix-id`, or `Idempotency-Key` /
 * `X-Request-ID` on any route), else a hash of the body, so the same body twice within the
 * dedupe window counts as one delivery. Ids that are not safe session-key tokens are hashed.
 */
export function deliveryIdOf(scheme: WebhookAuthScheme, headers: HeaderBag, body: Buffer): string {
  const given =
    (scheme === 'github' ? header(headers, 'x-github-delivery') : undefined) ??
    (scheme === 'standard' ? (header(headers, 'webhook-id') ?? header(headers, 'svix-id')) : undefined) ??
    header(headers, 'idempotency-key') ??
    header(headers, 'x-request-id');
  if (given !== undefined && given !== '') {
    const trimmed = given.trim();
    if (SAFE_ID.test(trimmed) && !trimmed.includes('..') && trimmed !== '.') return trimmed;
    return `id-${createHash('sha256').update(trimmed).digest('hex').slice(0, 32)}`;
  }
  return `body-${createHash('sha256').update(body).digest('hex').slice(0, 32)}`;
}
