import { describe, expect, it } from 'vitest';
import { visibleHeaders } from '../../../src/platforms/webhook/payload-path.js';

describe('visibleHeaders', () => {
  it('hides every header that carries credentials or a signature, and keeps the rest', () => {
    const shown = visibleHeaders({
      authorization: 'Bearer x',
      'proxy-authorization': 'Basic x',
      cookie: 'a=b',
      'set-cookie': ['a=b'],
      'x-hub-signature': 'sha1=x',
      'x-hub-signature-256': 'sha256=x',
      'webhook-signature': 'v1,x',
      'svix-signature': 'v1,x',
      'x-gitlab-token': 'x',
      'x-api-key': 'x',
      'x-shopify-hmac-sha256': 'x',
      'x-telegram-bot-api-secret-token': 'x',
      'x-lark-signature': 'x',
      'x-signature-ed25519': 'x',
      'stripe-signature': 'x',
      'x-github-event': 'issues',
      'x-github-delivery': 'd-1',
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/1',
    });
    expect(shown).toEqual({
      'x-github-event': 'issues',
      'x-github-delivery': 'd-1',
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/1',
    });
  });
});
