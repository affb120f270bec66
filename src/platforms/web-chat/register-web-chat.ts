import type { FastifyInstance } from 'fastify';
import { access } from '../platform.js';
import { bundleWebChat } from './bundle-web-chat.js';
import { webChatPage } from './web-chat-page.js';

/** Where the web pages live. */
export const WEB_UI_PREFIX = '/ui';

/**
 * `GET /ui/chat` (the page) and `GET /ui/chat/app.js` (its script, bundled once on first use and
 * kept). Both are public: they hold no data, and the page's calls go to `/v1`, which asks for the
 * API key when one is set (the page asks for it and keeps it in the tab's session storage).
 */
export function addWebChatRoutes(app: FastifyInstance, options: { readonly keyRequired: boolean }): void {
  let script: Promise<string> | undefined;
  const page = webChatPage({ keyRequired: options.keyRequired });
  const security = {
    'content-security-policy':
      "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
  app.get('/chat', access('public'), async (_request, reply) =>
    reply.headers(security).type('text/html; charset=utf-8').send(page),
  );
  app.get('/chat/app.js', access('public'), async (_request, reply) => {
    script ??= bundleWebChat();
    const text = await script.catch((error: unknown) => {
      script = undefined;
      throw error;
    });
    return reply
      .headers(security)
      .header('cache-control', 'no-cache')
      .type('text/javascript; charset=utf-8')
      .send(text);
  });
}
