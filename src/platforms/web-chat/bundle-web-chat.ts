import { type BrowserScript, loadBrowserScript } from '../../lib/browser-script.js';

/** The web chat's script (no CDN: served by the gateway). */
export const WEB_CHAT_SCRIPT: BrowserScript = {
  name: 'chat.js',
  source: 'src/platforms/web-chat/web/chat.js',
};

/** The web chat's script: bundled at build time (`dist/ui/chat.js`), or now when running from the sources. */
export async function bundleWebChat(): Promise<string> {
  return (await loadBrowserScript(WEB_CHAT_SCRIPT)).text;
}
